// A receiver that accepts every request and never answers (a hanging endpoint).
import { createServer } from 'node:http';
import { listen } from './listen.mjs';

listen(createServer((req) => req.resume()));
