// GET a URL with java.net.http.HttpClient (BodyHandlers.ofInputStream), copy the stream into the
// output file (or /dev/null) in 1 MiB reads while updating a java.util.zip.CRC32.
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;

public class Download {
    public static void main(String[] args) throws Exception {
        String url = args[0];
        Path dest = Path.of(args[2].equals("file") ? args[1] : "/dev/null");
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).build();
        HttpResponse<InputStream> resp = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
        if (resp.statusCode() != 200) throw new RuntimeException("status " + resp.statusCode());
        CRC32 crc = new CRC32();
        long n = 0;
        byte[] buf = new byte[1 << 20];
        try (InputStream in = resp.body(); OutputStream out = Files.newOutputStream(dest)) {
            for (int r; (r = in.read(buf)) != -1; ) {
                out.write(buf, 0, r);
                crc.update(buf, 0, r);
                n += r;
            }
        }
        System.out.printf("bytes=%d crc32=%08x%n", n, crc.getValue());
    }
}
