// Ping-pong server on the JDK's built-in com.sun.net.httpserver.HttpServer (no dependencies):
// POST / with body "ping" answers "pong", anything else 400.

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Executors;

public final class PingPong {
    private static final byte[] PING = "ping".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PONG = "pong".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BAD = "bad request".getBytes(StandardCharsets.US_ASCII);

    public static void main(String[] args) throws IOException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
        // Backlog 1024: the study opens up to 1000 connections at once.
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 1024);
        server.createContext("/", PingPong::handle);
        // The default executor runs every exchange on the dispatcher thread; a pool of two
        // threads per core lets the handler use the machine.
        server.setExecutor(Executors.newFixedThreadPool(2 * Runtime.getRuntime().availableProcessors()));
        server.start();
    }

    private static void handle(HttpExchange ex) throws IOException {
        byte[] body;
        try (InputStream in = ex.getRequestBody()) {
            body = in.readNBytes(5); // a ping is 4 bytes; a 5th means it is something else
        }
        boolean ok = "POST".equals(ex.getRequestMethod())
                && "/".equals(ex.getRequestURI().getPath())
                && Arrays.equals(body, PING);
        byte[] out = ok ? PONG : BAD;
        ex.getResponseHeaders().set("Content-Type", "text/plain");
        ex.sendResponseHeaders(ok ? 200 : 400, out.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(out);
        }
    }
}
