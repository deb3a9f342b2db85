/** acct-webhook/dispatcher: the platform's sending side. (Built in its own issue.) */
export { RETRY_SCHEDULE } from './schedule.js';
