// The dispatcher worker process of the fault-injection run (see run.mjs), on a compressed clock.
import { Dispatcher } from '../../dist/dispatcher.js';
import { chaosClock, DISPATCH_SETTINGS } from './settings.mjs';

const dispatcher = new Dispatcher({ database: process.env.DISPATCH_DB, clock: chaosClock(), logger: false, ...DISPATCH_SETTINGS });
await dispatcher.start();
console.log(JSON.stringify({ ready: true }));
process.on('SIGTERM', () => void dispatcher.stop().then(() => process.exit(0)));
