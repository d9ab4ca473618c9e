package lab;

import barrage.test.v1.Barrage.EchoReply;
import barrage.test.v1.Barrage.EchoRequest;
import barrage.test.v1.Barrage.StreamRequest;
import barrage.test.v1.Barrage.SumReply;
import barrage.test.v1.Barrage.SumRequest;
import com.google.protobuf.ByteString;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import com.google.protobuf.Message;
import java.net.InetSocketAddress;

/**
 * docs/grpc/barrage.proto's barrage.test.v1.Test on grpc-java over Netty (grpc-netty-shaded),
 * answering as barrage serve does (crates/server/src/grpc.rs): Echo and Chat give each request's
 * payload back (or `size` bytes of the pattern, byte i = i mod 251, when size > 0) with its text;
 * Stream sends `count` replies of `size` pattern bytes; Sum answers the count and the sum of the
 * values it read. The messages are protoc's generated classes; the service's binding is what
 * protoc-gen-grpc-java would generate (method descriptors with protobuf marshallers, handlers
 * from ServerCalls), written here. Netty's and grpc-java's defaults otherwise (event loops from
 * the CPUs the JVM may use, calls on grpc-java's default executor).
 *
 * <p>Usage: java -jar target/grpc-java.jar HOST:PORT
 */
public final class Server {
  private static final String SERVICE = "barrage.test.v1.Test";
  /** The largest reply payload made, as barrage serve's. */
  private static final int MAX_REPLY = 4 << 20;

  private static <Q extends Message, R extends Message> MethodDescriptor<Q, R> method(
      String name, MethodType type, Q request, R reply) {
    return MethodDescriptor.<Q, R>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .setRequestMarshaller(ProtoUtils.marshaller(request))
        .setResponseMarshaller(ProtoUtils.marshaller(reply))
        .build();
  }

  private static ByteString pattern(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i % 251);
    }
    return ByteString.copyFrom(b);
  }

  private static StatusRuntimeException tooLarge(int size) {
    return Status.INVALID_ARGUMENT
        .withDescription(
            "size " + Integer.toUnsignedString(size) + " is over the " + MAX_REPLY
                + " bytes a reply may have")
        .asRuntimeException();
  }

  /** Echo's and Chat's reply; `size` is a uint32, so compared unsigned. */
  private static EchoReply echo(EchoRequest req) {
    int size = req.getSize();
    if (Integer.compareUnsigned(size, MAX_REPLY) > 0) {
      throw tooLarge(size);
    }
    ByteString payload = size > 0 ? pattern(size) : req.getPayload();
    return EchoReply.newBuilder().setPayload(payload).setText(req.getText()).build();
  }

  static ServerServiceDefinition service() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(
            method("Echo", MethodType.UNARY, EchoRequest.getDefaultInstance(),
                EchoReply.getDefaultInstance()),
            ServerCalls.asyncUnaryCall(
                (EchoRequest req, StreamObserver<EchoReply> out) -> {
                  EchoReply reply;
                  try {
                    reply = echo(req);
                  } catch (StatusRuntimeException e) {
                    out.onError(e);
                    return;
                  }
                  out.onNext(reply);
                  out.onCompleted();
                }))
        .addMethod(
            method("Stream", MethodType.SERVER_STREAMING, StreamRequest.getDefaultInstance(),
                EchoReply.getDefaultInstance()),
            ServerCalls.asyncServerStreamingCall(
                (StreamRequest req, StreamObserver<EchoReply> out) -> {
                  if (Integer.compareUnsigned(req.getSize(), MAX_REPLY) > 0) {
                    out.onError(tooLarge(req.getSize()));
                    return;
                  }
                  EchoReply reply = EchoReply.newBuilder().setPayload(pattern(req.getSize())).build();
                  for (long i = Integer.toUnsignedLong(req.getCount()); i > 0; i--) {
                    out.onNext(reply);
                  }
                  out.onCompleted();
                }))
        .addMethod(
            method("Sum", MethodType.CLIENT_STREAMING, SumRequest.getDefaultInstance(),
                SumReply.getDefaultInstance()),
            ServerCalls.asyncClientStreamingCall(
                (StreamObserver<SumReply> out) ->
                    new StreamObserver<SumRequest>() {
                      long count;
                      long sum;

                      @Override
                      public void onNext(SumRequest req) {
                        count++;
                        sum += req.getValue();
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {
                        out.onNext(SumReply.newBuilder().setCount(count).setSum(sum).build());
                        out.onCompleted();
                      }
                    }))
        .addMethod(
            method("Chat", MethodType.BIDI_STREAMING, EchoRequest.getDefaultInstance(),
                EchoReply.getDefaultInstance()),
            ServerCalls.asyncBidiStreamingCall(
                (StreamObserver<EchoReply> out) ->
                    new StreamObserver<EchoRequest>() {
                      boolean failed;

                      @Override
                      public void onNext(EchoRequest req) {
                        if (failed) {
                          return;
                        }
                        try {
                          out.onNext(echo(req));
                        } catch (StatusRuntimeException e) {
                          failed = true;
                          out.onError(e);
                        }
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {
                        if (!failed) {
                          out.onCompleted();
                        }
                      }
                    }))
        .build();
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 1 || args[0].lastIndexOf(':') < 0) {
      System.err.println("usage: java -jar target/grpc-java.jar HOST:PORT");
      System.exit(2);
    }
    int colon = args[0].lastIndexOf(':');
    InetSocketAddress addr =
        new InetSocketAddress(args[0].substring(0, colon), Integer.parseInt(args[0].substring(colon + 1)));
    io.grpc.Server server = NettyServerBuilder.forAddress(addr).addService(service()).build().start();
    server.awaitTermination();
  }
}
