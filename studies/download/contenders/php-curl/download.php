<?php
// GET a URL with libcurl through PHP's curl extension: libcurl calls CURLOPT_WRITEFUNCTION with
// each chunk it receives, which writes it to OUT (or /dev/null) and feeds an incremental CRC-32
// (hash 'crc32b' is zlib's CRC-32); print the byte count and the checksum.
[$_, $url, $out, $sink] = $argv;
$f = fopen($sink === 'file' ? $out : '/dev/null', 'wb');
$crc = hash_init('crc32b');
$n = 0;
$ch = curl_init($url);
curl_setopt($ch, CURLOPT_FAILONERROR, true);
curl_setopt($ch, CURLOPT_WRITEFUNCTION, function ($ch, string $chunk) use ($f, $crc, &$n): int {
    fwrite($f, $chunk);
    hash_update($crc, $chunk);
    $n += strlen($chunk);
    return strlen($chunk);
});
if (curl_exec($ch) === false) {
    fwrite(STDERR, 'curl: ' . curl_error($ch) . "\n");
    exit(1);
}
curl_close($ch);
fclose($f);
printf("bytes=%d crc32=%s\n", $n, hash_final($crc));
