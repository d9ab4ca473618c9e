package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// seen is what `grpcpeer call` prints: Echo's calls by status code name and the OK ones whose
// reply was not the request's echo; the other methods' status and reply fields.
type seen struct {
	Echo       map[string]uint64 `json:"echo"`
	Mismatched uint64            `json:"echo_mismatched"`
	Stream     outcome           `json:"stream"`
	Sum        outcome           `json:"sum"`
	Chat       outcome           `json:"chat"`
	Missing    outcome           `json:"missing"`
}

// outcome is one call's status code name and its reply messages' fields (bytes as lengths:
// what the checks need).
type outcome struct {
	Code    string           `json:"code"`
	Replies []map[string]any `json:"replies"`
}

const test = "/barrage.test.v1.Test/"

func call(args []string) error {
	fs := flag.NewFlagSet("call", flag.ExitOnError)
	addr := fs.String("addr", "", "the server's host:port (h2c)")
	proto := fs.String("proto", "", "the .proto file of barrage.test.v1.Test")
	n := fs.Int("n", 100, "Echo calls")
	conns := fs.Int("conns", 2, "connections")
	streams := fs.Int("streams", 4, "calls in flight on each connection")
	fs.Parse(args)
	file, err := schema(*proto)
	if err != nil {
		return err
	}
	md := func(name string) protoreflect.MethodDescriptor {
		return file.Services().ByName("Test").Methods().ByName(protoreflect.Name(name))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var clients []*grpc.ClientConn
	for i := 0; i < *conns; i++ {
		c, err := grpc.NewClient(*addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return err
		}
		defer c.Close()
		clients = append(clients, c)
	}
	out := seen{Echo: map[string]uint64{}}

	// Echo: n calls, each with its own payload, spread over the connections' workers.
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	echo := md("Echo")
	for _, c := range clients {
		for j := 0; j < *streams; j++ {
			wg.Add(1)
			go func(c *grpc.ClientConn) {
				defer wg.Done()
				for i := range next {
					req := message(echo.Input())
					payload := []byte(fmt.Sprintf("call %d", i))
					set(req, "payload", protoreflect.ValueOfBytes(payload))
					set(req, "text", protoreflect.ValueOfString("t"))
					reply := message(echo.Output())
					err := c.Invoke(ctx, test+"Echo", req, reply)
					mu.Lock()
					out.Echo[status.Code(err).String()]++
					if err == nil && (!bytes.Equal(get(reply, "payload").Bytes(), payload) ||
						get(reply, "text").String() != "t") {
						out.Mismatched++
					}
					mu.Unlock()
				}
			}(c)
		}
	}
	for i := 0; i < *n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()

	c := clients[0]
	// Stream: five replies of three pattern bytes.
	out.Stream = stream(ctx, c, md("Stream"), true, false, func(m *dynamicpb.Message) {
		set(m, "count", protoreflect.ValueOfUint32(5))
		set(m, "size", protoreflect.ValueOfUint32(3))
	}, 1)
	// Sum: the values 1 to 100.
	out.Sum = stream(ctx, c, md("Sum"), false, true, func(m *dynamicpb.Message) {}, 100)
	// Chat: ten messages, payload [i], echoed in order.
	out.Chat = stream(ctx, c, md("Chat"), true, true, func(m *dynamicpb.Message) {}, 10)
	// A method the server does not have.
	out.Missing = stream(ctx, c, echo, false, false, func(m *dynamicpb.Message) {}, 1)
	return json.NewEncoder(os.Stdout).Encode(out)
}

// stream makes one call of md sending k requests (the i-th: fill's, with value i+1 and
// payload [i] where the message has those fields) and reads every reply. A method that is
// neither client- nor server-streaming is called at a path the server does not serve.
func stream(ctx context.Context, c *grpc.ClientConn, md protoreflect.MethodDescriptor,
	serverStreams, clientStreams bool, fill func(*dynamicpb.Message), k int) outcome {
	path := test + string(md.Name())
	if !serverStreams && !clientStreams {
		path = test + "Missing"
	}
	desc := &grpc.StreamDesc{ServerStreams: serverStreams, ClientStreams: clientStreams}
	s, err := c.NewStream(ctx, desc, path)
	if err != nil {
		return outcome{Code: status.Code(err).String()}
	}
	fields := md.Input().Fields()
	for i := 0; i < k && err == nil; i++ {
		req := message(md.Input())
		fill(req)
		if f := fields.ByName("value"); f != nil {
			req.Set(f, protoreflect.ValueOfInt64(int64(i+1)))
		}
		if f := fields.ByName("payload"); f != nil && clientStreams {
			req.Set(f, protoreflect.ValueOfBytes([]byte{byte(i)}))
		}
		err = s.SendMsg(req)
	}
	if err == nil {
		err = s.CloseSend()
	}
	var o outcome
	for err == nil {
		reply := message(md.Output())
		if err = s.RecvMsg(reply); err == nil {
			o.Replies = append(o.Replies, fieldsOf(reply))
			if !serverStreams {
				break // grpc-go read the status with the one reply
			}
		}
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	o.Code = status.Code(err).String()
	return o
}

// fieldsOf is m's set fields by name: numbers as numbers, bytes as their hex.
func fieldsOf(m *dynamicpb.Message) map[string]any {
	f := map[string]any{}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch fd.Kind() {
		case protoreflect.BytesKind:
			f[string(fd.Name())] = fmt.Sprintf("%x", v.Bytes())
		default:
			f[string(fd.Name())] = v.Interface()
		}
		return true
	})
	return f
}
