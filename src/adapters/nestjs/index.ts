/** acct-webhook/nestjs: the receiver as a NestJS 12 module, on the Express and the Fastify platform (docs/frameworks.md). */
export {
  AcctWebhookModule,
  OnWebhook,
  WEBHOOK_RECEIVER,
  type AcctWebhookModuleAsyncOptions,
  type AcctWebhookModuleOptions,
  type OnWebhookDecorator,
} from './module.js';
