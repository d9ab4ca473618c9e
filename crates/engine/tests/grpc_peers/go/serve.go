package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	// gzip for compressed requests (and, as grpc-go answers a compressed call, replies).
	_ "google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/reflection"
	v1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	v1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The largest reply payload made, as barrage serve's (crates/server/src/grpc.rs).
const maxReply = 4 << 20

// counts is what the server answered.
type counts struct {
	calls, messages, reflectionV1, reflectionV1alpha atomic.Uint64
}

// answered counts a call of the test services that read n request messages.
func (c *counts) answered(n uint64) {
	c.calls.Add(1)
	c.messages.Add(n)
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	proto := fs.String("proto", "", "the .proto file whose services are served")
	versions := fs.String("reflection", "v1,v1alpha", "reflection versions served (comma-separated; empty: none)")
	fs.Parse(args)
	file, err := schema(*proto)
	if err != nil {
		return err
	}
	var n counts
	// Reflection calls are counted by an interceptor: grpc-go's reflection service is its own.
	s := grpc.NewServer(grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		err := h(srv, ss)
		switch info.FullMethod {
		case "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo":
			n.reflectionV1.Add(1)
		case "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo":
			n.reflectionV1alpha.Add(1)
		}
		return err
	}))
	services := file.Services()
	for i := 0; i < services.Len(); i++ {
		desc, err := service(services.Get(i), &n)
		if err != nil {
			return err
		}
		s.RegisterService(desc, struct{}{})
	}
	opts := reflection.ServerOptions{Services: s}
	for _, v := range strings.Split(*versions, ",") {
		switch v {
		case "v1":
			v1.RegisterServerReflectionServer(s, reflection.NewServerV1(opts))
		case "v1alpha":
			v1alpha.RegisterServerReflectionServer(s, reflection.NewServer(opts))
		case "":
		default:
			return fmt.Errorf("unknown reflection version %q", v)
		}
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go s.Serve(lis)
	fmt.Printf("port=%d\n", lis.Addr().(*net.TCPAddr).Port)
	io.Copy(io.Discard, os.Stdin)
	s.Stop()
	fmt.Printf("calls=%d messages=%d reflection_v1=%d reflection_v1alpha=%d\n",
		n.calls.Load(), n.messages.Load(), n.reflectionV1.Load(), n.reflectionV1alpha.Load())
	return nil
}

// service is the grpc.ServiceDesc of sd: unary methods through grpc-go's unary path, the
// others as streams. A service named Failing fails every call UNAVAILABLE.
func service(sd protoreflect.ServiceDescriptor, n *counts) (*grpc.ServiceDesc, error) {
	desc := &grpc.ServiceDesc{
		ServiceName: string(sd.FullName()),
		HandlerType: (*any)(nil),
		Metadata:    sd.ParentFile().Path(),
	}
	failing := sd.Name() == "Failing"
	methods := sd.Methods()
	for i := 0; i < methods.Len(); i++ {
		md := methods.Get(i)
		name := string(md.Name())
		if !md.IsStreamingClient() && !md.IsStreamingServer() {
			if !failing && name != "Echo" {
				return nil, fmt.Errorf("no handler for unary %s", md.FullName())
			}
			desc.Methods = append(desc.Methods, grpc.MethodDesc{
				MethodName: name,
				Handler:    unary(md, failing, n),
			})
			continue
		}
		h := streams[name]
		if failing || h == nil {
			return nil, fmt.Errorf("no handler for streaming %s", md.FullName())
		}
		desc.Streams = append(desc.Streams, grpc.StreamDesc{
			StreamName:    name,
			ServerStreams: md.IsStreamingServer(),
			ClientStreams: md.IsStreamingClient(),
			Handler: func(_ any, ss grpc.ServerStream) error {
				read, err := h(md, ss)
				n.answered(read)
				return err
			},
		})
	}
	return desc, nil
}

// unary is Echo's handler (or Failing's: UNAVAILABLE).
func unary(md protoreflect.MethodDescriptor, failing bool, n *counts) grpc.MethodHandler {
	return func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		req := message(md.Input())
		if err := dec(req); err != nil {
			return nil, err
		}
		n.answered(1)
		if failing {
			return nil, status.Error(codes.Unavailable, "asked to fail")
		}
		return echo(req, md.Output())
	}
}

// echo is EchoReply { payload: the request's payload, or `size` bytes of the pattern when
// size > 0; text: the request's text }.
func echo(req *dynamicpb.Message, out protoreflect.MessageDescriptor) (*dynamicpb.Message, error) {
	size := get(req, "size").Uint()
	if size > maxReply {
		return nil, status.Errorf(codes.InvalidArgument, "size %d is over %d", size, maxReply)
	}
	payload := get(req, "payload").Bytes()
	if size > 0 {
		payload = pattern(size)
	}
	r := message(out)
	set(r, "payload", protoreflect.ValueOfBytes(payload))
	set(r, "text", get(req, "text"))
	return r, nil
}

// A streaming method's handler: it returns the request messages it read.
type streamHandler func(md protoreflect.MethodDescriptor, ss grpc.ServerStream) (uint64, error)

var streams = map[string]streamHandler{
	// Stream: `count` EchoReply messages of `size` pattern bytes each.
	"Stream": func(md protoreflect.MethodDescriptor, ss grpc.ServerStream) (uint64, error) {
		req := message(md.Input())
		if err := ss.RecvMsg(req); err != nil {
			return 0, err
		}
		size := get(req, "size").Uint()
		if size > maxReply {
			return 1, status.Errorf(codes.InvalidArgument, "size %d is over %d", size, maxReply)
		}
		r := message(md.Output())
		set(r, "payload", protoreflect.ValueOfBytes(pattern(size)))
		for i := get(req, "count").Uint(); i > 0; i-- {
			if err := ss.SendMsg(r); err != nil {
				return 1, err
			}
		}
		return 1, nil
	},
	// Sum: SumReply { count of the messages, sum of their values }.
	"Sum": func(md protoreflect.MethodDescriptor, ss grpc.ServerStream) (uint64, error) {
		var count uint64
		var sum int64
		for {
			req := message(md.Input())
			err := ss.RecvMsg(req)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return count, err
			}
			count++
			sum += get(req, "value").Int()
		}
		r := message(md.Output())
		set(r, "count", protoreflect.ValueOfUint64(count))
		set(r, "sum", protoreflect.ValueOfInt64(sum))
		return count, ss.SendMsg(r)
	},
	// Chat: each message's echo as it arrives.
	"Chat": func(md protoreflect.MethodDescriptor, ss grpc.ServerStream) (uint64, error) {
		var count uint64
		for {
			req := message(md.Input())
			err := ss.RecvMsg(req)
			if errors.Is(err, io.EOF) {
				return count, nil
			}
			if err != nil {
				return count, err
			}
			count++
			r, err := echo(req, md.Output())
			if err != nil {
				return count, err
			}
			if err := ss.SendMsg(r); err != nil {
				return count, err
			}
		}
	},
}
