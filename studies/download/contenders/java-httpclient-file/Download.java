// GET a URL with java.net.http.HttpClient and BodyHandlers.ofFile: the JDK itself writes the body
// to the output file, the program never sees the bytes. The CRC-32 is then computed by reading the
// file back (1 MiB reads), which is part of the measured time: ofFile offers no streaming hook.
// ofFile needs a real file, so sink=null is refused.
import java.io.InputStream;
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
        if (!args[2].equals("file")) {
            System.err.println("java-httpclient-file: BodyHandlers.ofFile needs sink=file");
            System.exit(2);
        }
        Path dest = Path.of(args[1]);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).build();
        HttpResponse<Path> resp = client.send(req, HttpResponse.BodyHandlers.ofFile(dest));
        if (resp.statusCode() != 200) throw new RuntimeException("status " + resp.statusCode());
        CRC32 crc = new CRC32();
        long n = 0;
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(resp.body())) {
            for (int r; (r = in.read(buf)) != -1; ) {
                crc.update(buf, 0, r);
                n += r;
            }
        }
        System.out.printf("bytes=%d crc32=%08x%n", n, crc.getValue());
    }
}
