// Hello-world server on Jetty 12 for barrage's multiplexing study: GET / answers 200
// "Hello, World!" (text/plain), anything else 404. One connector serves HTTP/1.1 (keep-alive,
// pipelining) and HTTP/2 over cleartext with prior knowledge (h2c): Jetty's HTTP/1.1 connection
// recognises the preface ("PRI * HTTP/2.0") and hands the connection to the h2c factory. One
// acceptor, one selector, a small thread pool (the study pins the process to one CPU), HTTP/2
// max concurrent streams 256. Usage: java -jar target/hello.jar PORT
package lab;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

public final class Hello {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: hello PORT");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        QueuedThreadPool pool = new QueuedThreadPool(16, 4);
        pool.setName("hello");
        Server server = new Server(pool);
        HttpConfiguration config = new HttpConfiguration();
        config.setSendServerVersion(false);
        HttpConnectionFactory http1 = new HttpConnectionFactory(config);
        HTTP2CServerConnectionFactory h2c = new HTTP2CServerConnectionFactory(config);
        h2c.setMaxConcurrentStreams(256);
        ServerConnector connector = new ServerConnector(server, 1, 1, http1, h2c);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        connector.setAcceptQueueSize(1024);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                if (!"/".equals(Request.getPathInContext(request))) {
                    Response.writeError(request, response, callback, 404);
                    return true;
                }
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, HELLO.length);
                response.write(true, ByteBuffer.wrap(HELLO), callback);
                return true;
            }
        });
        server.start();
        server.join();
    }
}
