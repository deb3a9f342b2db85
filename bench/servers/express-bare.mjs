// Baseline (a): bare Express 5, reading the raw body by hand and answering 200.
import express from 'express';
import { listen } from './listen.mjs';

const app = express();
app.post('/webhooks', (req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    Buffer.concat(chunks);
    res.status(200).json({ received: true });
  });
});
listen(app);
