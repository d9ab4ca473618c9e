// The naive variant: java.net.http.HttpClient with BodyHandlers.ofByteArray (the whole body in
// one byte[]), then write it to the output file (or /dev/null) and print bytes and CRC-32.
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
        HttpResponse<byte[]> resp = client.send(req, HttpResponse.BodyHandlers.ofByteArray());
        if (resp.statusCode() != 200) throw new RuntimeException("status " + resp.statusCode());
        byte[] body = resp.body();
        Files.write(dest, body);
        CRC32 crc = new CRC32();
        crc.update(body);
        System.out.printf("bytes=%d crc32=%08x%n", body.length, crc.getValue());
    }
}
