// Command grpcgo serves docs/grpc/barrage.proto's barrage.test.v1.Test on grpc-go, gRPC's own
// Go implementation, with the code protoc-gen-go and protoc-gen-go-grpc generate (pb/, made by
// gen.sh), answering as barrage serve does (crates/server/src/grpc.rs): Echo and Chat give each
// request's payload back (or `size` bytes of the pattern, byte i = i mod 251, when size > 0)
// with its text; Stream sends `count` replies of `size` pattern bytes; Sum answers the count and
// the sum of the values it read.
//
//	grpcgo HOST:PORT
//
// GOMAXPROCS is Go's default: the CPUs the process may run on.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"barrage.study/grpcgo/pb"
)

// The largest reply payload made, as barrage serve's.
const maxReply = 4 << 20

type server struct {
	pb.UnimplementedTestServer
}

func pattern(n uint32) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func tooLarge(size uint32) error {
	return status.Errorf(codes.InvalidArgument, "size %d is over the %d bytes a reply may have", size, maxReply)
}

// echo is Echo's and Chat's reply.
func echo(req *pb.EchoRequest) (*pb.EchoReply, error) {
	if req.Size > maxReply {
		return nil, tooLarge(req.Size)
	}
	payload := req.Payload
	if req.Size > 0 {
		payload = pattern(req.Size)
	}
	return &pb.EchoReply{Payload: payload, Text: req.Text}, nil
}

func (server) Echo(_ context.Context, req *pb.EchoRequest) (*pb.EchoReply, error) {
	return echo(req)
}

func (server) Stream(req *pb.StreamRequest, ss grpc.ServerStreamingServer[pb.EchoReply]) error {
	if req.Size > maxReply {
		return tooLarge(req.Size)
	}
	r := &pb.EchoReply{Payload: pattern(req.Size)}
	for i := req.Count; i > 0; i-- {
		if err := ss.Send(r); err != nil {
			return err
		}
	}
	return nil
}

func (server) Sum(ss grpc.ClientStreamingServer[pb.SumRequest, pb.SumReply]) error {
	var count uint64
	var sum int64
	for {
		req, err := ss.Recv()
		if errors.Is(err, io.EOF) {
			return ss.SendAndClose(&pb.SumReply{Count: count, Sum: sum})
		}
		if err != nil {
			return err
		}
		count++
		sum += req.Value
	}
}

func (server) Chat(ss grpc.BidiStreamingServer[pb.EchoRequest, pb.EchoReply]) error {
	for {
		req, err := ss.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		r, err := echo(req)
		if err != nil {
			return err
		}
		if err := ss.Send(r); err != nil {
			return err
		}
	}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: grpcgo HOST:PORT")
		os.Exit(2)
	}
	lis, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	s := grpc.NewServer()
	pb.RegisterTestServer(s, server{})
	log.Fatal(s.Serve(lis))
}
