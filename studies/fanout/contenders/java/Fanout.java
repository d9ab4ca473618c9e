import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32;

/**
 * N concurrent GETs with java.net.http.HttpClient, one blocking send() per task on a fixed pool
 * of N platform threads. JDK 17 has no virtual threads (JDK 21: Executors.newVirtualThreadPerTaskExecutor()).
 * Usage: java Fanout URL N   Prints "fanout_s=<seconds>" (the fan-out timed in here, from the
 * client's creation to the last response, without the JVM's start-up), then
 * "ok=<200 responses> crc32=<distinct body CRC-32s>".
 */
public final class Fanout {
    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args[0]);
        int n = Integer.parseInt(args[1]);
        long start = System.nanoTime();
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest req = HttpRequest.newBuilder(uri).GET().build();
        ExecutorService pool = Executors.newFixedThreadPool(n);
        List<Future<HttpResponse<byte[]>>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            futures.add(pool.submit(() -> client.send(req, HttpResponse.BodyHandlers.ofByteArray())));
        }
        List<HttpResponse<byte[]>> responses = new ArrayList<>();
        for (Future<HttpResponse<byte[]>> f : futures) {
            responses.add(f.get());
        }
        double fanoutS = (System.nanoTime() - start) / 1e9;
        int ok = 0;
        TreeSet<String> crcs = new TreeSet<>();
        for (HttpResponse<byte[]> r : responses) {
            if (r.statusCode() == 200) ok++;
            CRC32 crc = new CRC32();
            crc.update(r.body());
            crcs.add(String.format("%08x", crc.getValue()));
        }
        pool.shutdown();
        System.out.println(String.format(java.util.Locale.ROOT, "fanout_s=%.6f", fanoutS));
        System.out.println("ok=" + ok + " crc32=" + String.join(",", crcs));
        System.exit(ok == n ? 0 : 1);
    }
}
