<?php
// N concurrent GETs with curl_multi: one process, libcurl drives all transfers from one loop.
// Usage: php curl_multi.php URL N   Prints "fanout_s=<seconds>" (the fan-out timed in here, from
// before the first handle to the last response, without PHP's start-up), then
// "ok=<200 responses> crc32=<distinct body CRC-32s>".
[$_, $url, $n] = $argv;
$n = (int)$n;
$start = hrtime(true);
$mh = curl_multi_init();
$handles = [];
for ($i = 0; $i < $n; $i++) {
    $h = curl_init($url);
    curl_setopt($h, CURLOPT_RETURNTRANSFER, true);
    curl_multi_add_handle($mh, $h);
    $handles[] = $h;
}
do {
    $status = curl_multi_exec($mh, $running);
    if ($running) {
        curl_multi_select($mh); // wait for activity instead of spinning
    }
} while ($running && $status == CURLM_OK);
$fanout_s = (hrtime(true) - $start) / 1e9;
$ok = 0;
$crcs = [];
foreach ($handles as $h) {
    if (curl_getinfo($h, CURLINFO_RESPONSE_CODE) == 200) {
        $ok++;
    }
    $crcs[hash('crc32b', curl_multi_getcontent($h))] = true;
    curl_multi_remove_handle($mh, $h);
    curl_close($h);
}
curl_multi_close($mh);
$keys = array_keys($crcs);
sort($keys);
printf("fanout_s=%.6f\n", $fanout_s);
echo "ok=$ok crc32=" . implode(',', $keys) . "\n";
exit($ok == $n ? 0 : 1);
