// Command grpcpeer is grpc-go, gRPC's own Go implementation, as barrage's tests' peer, with no
// generated code: the .proto it is given is compiled at run time (bufbuild/protocompile), its
// messages are dynamic (dynamicpb) under grpc-go's usual proto codec, and its services are
// grpc.ServiceDesc values made from the descriptors.
//
//	grpcpeer serve -proto FILE [-reflection v1,v1alpha]
//
// serves the services of FILE (docs/grpc/barrage.proto's barrage.test.v1.Test, and a service
// named Failing whose every method fails UNAVAILABLE) on 127.0.0.1, port chosen by the system,
// with grpc-go's reflection service in the versions listed (none: -reflection ""). Prints
// `port=N` once serving; when stdin ends, stops and prints `calls=N messages=M reflection_v1=R1
// reflection_v1alpha=R2`: the calls of FILE's services it answered, the request messages they
// read, and the reflection calls it answered.
//
//	grpcpeer call -addr HOST:PORT -proto FILE -n N -conns C -streams S
//
// is grpc-go's client: N calls of barrage.test.v1.Test/Echo on C connections, S at a time on
// each, every reply checked, then one call of each other method of the test service and one of
// a method the server lacks; prints what it saw as one JSON object (see call.go).
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: grpcpeer serve|call [flags]")
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "call":
		err = call(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q: serve or call", os.Args[1])
	}
	if err != nil {
		fail(err.Error())
	}
}

func fail(why string) {
	fmt.Fprintln(os.Stderr, "grpcpeer:", why)
	os.Exit(2)
}

// schema compiles the .proto file at path and registers it in protoregistry.GlobalFiles, where
// grpc-go's reflection service looks symbols up.
func schema(path string) (protoreflect.FileDescriptor, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	dir, name := filepath.Split(abs)
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: []string{dir},
		}),
	}
	files, err := c.Compile(context.Background(), name)
	if err != nil {
		return nil, err
	}
	if err := protoregistry.GlobalFiles.RegisterFile(files[0]); err != nil {
		return nil, err
	}
	return files[0], nil
}

// message is a new message of the type md, or of the file's message named name.
func message(md protoreflect.MessageDescriptor) *dynamicpb.Message {
	return dynamicpb.NewMessage(md)
}

func named(file protoreflect.FileDescriptor, name string) (protoreflect.MessageDescriptor, error) {
	md := file.Messages().ByName(protoreflect.Name(name))
	if md == nil {
		return nil, fmt.Errorf("%s has no message %s", file.Path(), name)
	}
	return md, nil
}

// get is the field called name of m (its default when unset).
func get(m *dynamicpb.Message, name string) protoreflect.Value {
	return m.Get(m.Descriptor().Fields().ByName(protoreflect.Name(name)))
}

func set(m *dynamicpb.Message, name string, v protoreflect.Value) {
	m.Set(m.Descriptor().Fields().ByName(protoreflect.Name(name)), v)
}

// pattern is n bytes of barrage's /bytes pattern: byte i is i % 251 (crates/wire/src/pattern.rs).
func pattern(n uint64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}
