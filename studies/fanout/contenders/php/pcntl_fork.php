<?php
// N concurrent GETs with pcntl_fork: one child process per request, each answers its parent
// through a socket pair. Usage: php pcntl_fork.php URL N   Prints "fanout_s=<seconds>" (the
// fan-out timed in here, from the first fork to the last child reaped, without PHP's start-up),
// then "ok=<200 responses> crc32=<distinct body CRC-32s>".
[$_, $url, $n] = $argv;
$n = (int)$n;
$start = hrtime(true);
$pairs = [];
$pids = [];
for ($i = 0; $i < $n; $i++) {
    $pair = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
    $pid = pcntl_fork();
    if ($pid == -1) {
        fwrite(STDERR, "fork failed\n");
        exit(1);
    }
    if ($pid == 0) { // child: fetch, send "STATUS BODY" to the parent, exit
        fclose($pair[0]);
        $body = @file_get_contents($url);
        $code = 0;
        if (isset($http_response_header[0]) && preg_match('#^HTTP/\S+ (\d+)#', $http_response_header[0], $m)) {
            $code = (int)$m[1];
        }
        fwrite($pair[1], $code . ' ' . ($body === false ? '' : $body));
        fclose($pair[1]);
        exit(0);
    }
    fclose($pair[1]);
    $pairs[] = $pair[0];
    $pids[] = $pid;
}
$answers = [];
foreach ($pairs as $s) { // reading blocks until that child is done; all run meanwhile
    $answers[] = stream_get_contents($s);
    fclose($s);
}
foreach ($pids as $pid) {
    pcntl_waitpid($pid, $status);
}
$fanout_s = (hrtime(true) - $start) / 1e9;
$ok = 0;
$crcs = [];
foreach ($answers as $answer) {
    [$code, $body] = explode(' ', $answer, 2) + [1 => ''];
    if ($code === '200') {
        $ok++;
    }
    $crcs[hash('crc32b', $body)] = true;
}
$keys = array_keys($crcs);
sort($keys);
printf("fanout_s=%.6f\n", $fanout_s);
echo "ok=$ok crc32=" . implode(',', $keys) . "\n";
exit($ok == $n ? 0 : 1);
