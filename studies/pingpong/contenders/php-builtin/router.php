<?php
// Ping-pong router for PHP's built-in web server (`php -S`): POST / with body "ping" answers
// "pong", anything else 400.
header('Content-Type: text/plain');
if ($_SERVER['REQUEST_METHOD'] === 'POST'
    && parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) === '/'
    && file_get_contents('php://input') === 'ping') {
    echo 'pong';
} else {
    http_response_code(400);
    echo 'bad request';
}
