// bench/ws.sh's k6 client: VUS virtual users, each one WebSocket connection running a closed
// loop (send MESSAGE, wait for the echo, send again) for DURATION_S seconds, then closing.
// Messages are counted by k6's own ws_msgs_received (no per-message metric of our own, so k6
// pays nothing extra); a reply that is not the message counts in bad_echoes. The summary goes
// to the JSON file SUMMARY (handleSummary), where bench/ws.sh reads the counts.
//
// k6 run -e URL=ws://127.0.0.1:9001/ -e VUS=64 -e DURATION_S=5 -e SUMMARY=out.json bench/ws/echo.js
import { WebSocket } from 'k6/websockets';
import { Counter } from 'k6/metrics';
import { setTimeout } from 'k6/timers';

const URL = __ENV.URL;
const MESSAGE = __ENV.MESSAGE || 'Hello, World!';
const VUS = parseInt(__ENV.VUS || '64', 10);
const DURATION_S = parseFloat(__ENV.DURATION_S || '5');
const badEchoes = new Counter('bad_echoes');

export const options = {
  scenarios: {
    echo: {
      executor: 'per-vu-iterations',
      vus: VUS,
      iterations: 1,
      maxDuration: `${Math.ceil(DURATION_S) + 30}s`,
    },
  },
};

export default function () {
  const ws = new WebSocket(URL);
  ws.onopen = () => {
    ws.send(MESSAGE);
    setTimeout(() => ws.close(), DURATION_S * 1000);
  };
  ws.onmessage = (e) => {
    if (e.data !== MESSAGE) {
      badEchoes.add(1);
    }
    ws.send(MESSAGE);
  };
  ws.onerror = (e) => {
    console.error(`ws error: ${e.error}`);
  };
}

export function handleSummary(data) {
  return { [__ENV.SUMMARY]: JSON.stringify(data) };
}
