<?php
// Runs verify_signature from the README's PHP snippet ($argv[1]) on every case of $argv[2].
require $argv[1];

foreach (json_decode(file_get_contents($argv[2]), true) as $c) {
    $ok = verify_signature(base64_decode($c['body'], true), $c['header'], $c['secret']);
    echo $c['name'], "\t", is_bool($ok) ? ($ok ? 'true' : 'false') : 'not a bool: ' . var_export($ok, true), "\n";
}
