// Baseline: bare node:http reading the body and answering 200.
import { createServer } from 'node:http';
import { listen } from './listen.mjs';

listen(
  createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      Buffer.concat(chunks);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"received":true}');
    });
  }),
);
