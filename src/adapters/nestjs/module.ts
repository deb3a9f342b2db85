import { Logger, SetMetadata, type DynamicModule, type FactoryProvider, type ModuleMetadata, type Provider } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, HttpAdapterHost, MetadataScanner, Reflector } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expandEventPattern, type EventPattern } from '../../events/event-types.js';
import { ConfigurationError } from '../../kernel/errors.js';
import { NODE_PLATFORM } from '../../platform/node.js';
import type { HandlerContext } from '../../receiver/context.js';
import { expressMiddleware } from '../express/middleware.js';
import { fastifyWebhookRoute } from '../fastify/plugin.js';
import { checkHandlerOptions, resolveHandlerOptions, type BodyOptions, type WebhookHandlerOptions } from '../../receiver/options.js';
import { buildReceiver, type Receiver } from '../../receiver/receive.js';
import type { WebhookEvent } from '../../events/schemas.js';
import { Webhooks, type EventForPattern, type WebhookEventHandler } from '../../receiver/webhooks.js';

/*
 * The receiver as a NestJS module. The body problem is solved below Nest's router: Nest registers
 * its body parsers in `app.init()`, after every provider was created, so the receiver's provider
 * (created in `NestFactory.create`) mounts the webhook route on the platform's own instance first
 * — on Express a middleware in front of `express.json()`, on Fastify the encapsulated route of
 * `fastifyWebhooks`, whose context has no content-type parser. The app's body parsing stays as it
 * is, `rawBody: true` or not. Handlers are methods of providers and controllers marked
 * `@OnWebhook(…)`, found with Nest's DiscoveryService when the module initialises.
 */

/** The injection token of the receiver: `@Inject(WEBHOOK_RECEIVER) receiver: Receiver`. A string, so that it is the same token in the ESM and the CommonJS build. */
export const WEBHOOK_RECEIVER = 'acct-webhook:receiver';

/** Where `@OnWebhook` keeps a method's patterns (Nest's metadata, read back with a Reflector). */
const ON_WEBHOOK = 'acct-webhook:on-webhook';
const OPTIONS = 'acct-webhook:module-options';
const LIFECYCLE = 'acct-webhook:lifecycle';
const reflector = new Reflector();

/** What `AcctWebhookModule.forRoot` takes: the receiver's options; `path` is the route (default `/webhooks`), outside Nest's global prefix. */
export type AcctWebhookModuleOptions = WebhookHandlerOptions;

/** What `AcctWebhookModule.forRootAsync` takes: the options from a factory, with the modules and providers it needs. */
export interface AcctWebhookModuleAsyncOptions {
  /** Modules whose providers `useFactory` injects (a `ConfigModule`). */
  imports?: ModuleMetadata['imports'];
  /** The providers `useFactory` is called with, in order. */
  inject?: FactoryProvider['inject'];
  /** Returns the module's options (or a promise of them). */
  useFactory: (...dependencies: never[]) => AcctWebhookModuleOptions | Promise<AcctWebhookModuleOptions>;
}

/**
 * The method decorator `@OnWebhook(pattern)` returns: it accepts a method whose first parameter
 * takes the events the pattern selects (and, optionally, the handler's context).
 */
export type OnWebhookDecorator<P extends EventPattern> = <M extends WebhookEventHandler<EventForPattern<P>>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

/**
 * Marks a method of a Nest provider or controller as the handler of an event type, a group
 * (`'invoice.*'`) or every event (`'*'`), as `Webhooks.on` does. The method runs on the provider's
 * instance, with its injected dependencies; it is typed: `@OnWebhook('invoice.paid')` on a method
 * taking `WebhookEvent<'customer.created'>` does not compile. An unknown type is refused when the
 * class is defined. Several `@OnWebhook` on one method add up.
 *
 * @example
 * // A provider (Injectable) whose method `paid` carries OnWebhook('invoice.paid') as its decorator
 * // (JSDoc cannot show an at-sign at the start of a line; docs/frameworks.md#nestjs shows it in place):
 * class Billing {
 *   constructor(private readonly invoices: InvoiceService) {}
 *   paid(event: WebhookEvent<'invoice.paid'>) {
 *     return this.invoices.markPaid(event.data.object.id);
 *   }
 * }
 */
export function OnWebhook<P extends EventPattern>(patterns: P | readonly P[]): OnWebhookDecorator<P> {
  const list: readonly string[] = Array.isArray(patterns) ? patterns : [patterns as P];
  if (list.length === 0) throw new ConfigurationError({ option: 'patterns', reason: 'must name at least one event type' }, '@OnWebhook() needs at least one event type');
  for (const pattern of list) {
    if (typeof pattern !== 'string' || expandEventPattern(pattern).length === 0) {
      throw new ConfigurationError({ option: 'patterns', reason: `"${String(pattern)}" is not an event type or pattern` }, `@OnWebhook: unknown event type or pattern "${String(pattern)}"`);
    }
  }
  return (target, key, descriptor) => {
    if (typeof descriptor.value !== 'function') {
      throw new ConfigurationError({ option: 'OnWebhook', reason: `decorates methods; ${String(key)} is not one` });
    }
    const before = reflector.get<string[] | undefined>(ON_WEBHOOK, descriptor.value) ?? [];
    SetMetadata(ON_WEBHOOK, [...before, ...list])(target, key, descriptor);
  };
}

/**
 * The platform's webhooks in a NestJS 12 app, on the Express or the Fastify platform: one route
 * (`path`, default `/webhooks`) that verifies the raw body whatever the app's body parsing, and
 * handlers written as `@OnWebhook` methods of providers. The module is global: inject the receiver
 * anywhere with `@Inject(WEBHOOK_RECEIVER)` (its inbox API, `reprocess`). It is closed when the
 * app closes. Import it once per app.
 *
 * @example
 * const webhooks = AcctWebhookModule.forRoot({ path: '/webhooks', secret: process.env.WEBHOOK_SECRET! });
 * // the app's root module: Module({ imports: [webhooks], providers: [Billing] }) on class AppModule
 */
export class AcctWebhookModule {
  /**
   * The module with its options given here; they are checked now (an unknown one refused), and
   * the receiver is built (its store opened) when the app is created.
   *
   * @example
   * AcctWebhookModule.forRoot({ secret: process.env.WEBHOOK_SECRET!, inbox: true })
   */
  static forRoot(options: AcctWebhookModuleOptions): DynamicModule {
    checkHandlerOptions(options, 'AcctWebhookModule');
    return moduleWith([], { provide: OPTIONS, useValue: options });
  }

  /**
   * The module with its options from a factory (a `ConfigService`); they are checked when the
   * app is created.
   *
   * @example
   * AcctWebhookModule.forRootAsync({
   *   imports: [ConfigModule],
   *   inject: [ConfigService],
   *   useFactory: (config: ConfigService) => ({ secret: config.getOrThrow('WEBHOOK_SECRET') }),
   * })
   */
  static forRootAsync(options: AcctWebhookModuleAsyncOptions): DynamicModule {
    if (typeof options?.useFactory !== 'function') throw new ConfigurationError({ option: 'useFactory', reason: 'must be a function returning the module options' });
    const { imports = [], inject = [], useFactory, ...unknown } = options;
    const extra = Object.keys(unknown)[0];
    if (extra !== undefined) throw new ConfigurationError({ option: extra, reason: 'is not an option of forRootAsync (imports, inject, useFactory)' });
    // Nest calls the factory with what `inject` names; the type says only that it takes them.
    return moduleWith(imports, { provide: OPTIONS, inject, useFactory: useFactory as (...dependencies: unknown[]) => ReturnType<typeof useFactory> });
  }
}

function moduleWith(imports: NonNullable<ModuleMetadata['imports']>, options: Provider<AcctWebhookModuleOptions>): DynamicModule {
  return {
    module: AcctWebhookModule,
    global: true,
    imports: [DiscoveryModule, ...imports],
    providers: [
      options,
      { provide: WEBHOOK_RECEIVER, inject: [OPTIONS, HttpAdapterHost], useFactory: createReceiver },
      { provide: LIFECYCLE, inject: [WEBHOOK_RECEIVER, DiscoveryService, MetadataScanner], useFactory: lifecycle },
    ],
    exports: [WEBHOOK_RECEIVER],
  };
}

/** The handlers the module runs: registered when the module initialises, and not run before (the inbox worker starts with the receiver). */
class DiscoveredWebhooks extends Webhooks {
  private open!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.open = resolve));

  constructor(private readonly target: Webhooks) {
    super();
  }

  register(patterns: readonly EventPattern[], handler: (event: WebhookEvent, context: HandlerContext) => unknown): void {
    this.target.on(patterns, handler);
  }

  start(): void {
    this.open();
  }

  override async run(event: WebhookEvent, context: HandlerContext): Promise<unknown[]> {
    await this.opened;
    return await this.target.run(event, context);
  }

  override reportError(...args: Parameters<Webhooks['reportError']>): Promise<unknown[]> {
    return this.target.reportError(...args);
  }
}

interface Built {
  handlers: DiscoveredWebhooks;
}
const builtBy = new WeakMap<Receiver, Built>();

/** The receiver's provider: built, and its route mounted, while Nest creates the app — before `app.init()` registers the body parsers. */
function createReceiver(options: AcctWebhookModuleOptions, host: HttpAdapterHost): Receiver {
  const { receiver: resolved, body } = resolveHandlerOptions(options, 'AcctWebhookModule', NODE_PLATFORM);
  const handlers = new DiscoveredWebhooks(resolved.handlers);
  const receiver = buildReceiver({ ...resolved, handlers });
  builtBy.set(receiver, { handlers });
  mountRoute(host, receiver, body);
  return receiver;
}

const EXPRESS_FIX =
  'AcctWebhookModule mounts its route on the Express instance when NestFactory.create runs, in front of the body parsers Nest adds; a parser mounted on an Express instance handed to new ExpressAdapter(…) runs before it. Mount that parser after NestFactory.create, or create the app with rawBody: true.';

function mountRoute(host: HttpAdapterHost, receiver: Receiver, body: BodyOptions): void {
  // No HTTP platform (NestFactory.createApplicationContext): the receiver serves its inbox API only.
  const adapter = host.httpAdapter as HttpAdapterHost['httpAdapter'] | undefined;
  if (adapter === undefined) return;
  const type = adapter.getType();
  if (type !== 'express' && type !== 'fastify') {
    throw new ConfigurationError({ option: 'platform', reason: `is "${type}": AcctWebhookModule serves the Express and the Fastify platform` });
  }
  // Nest lists the routes of its controllers as its router maps them ("Mapped {/orders, POST}
  // route"); this one is on the platform's instance, below that router, so it is announced here,
  // in the same words, through Nest's logger (the app's `logger` option applies).
  new Logger('AcctWebhookModule').log(`Mapped {${body.path}, POST} route on the ${type === 'express' ? 'Express' : 'Fastify'} instance, below Nest's router`);
  if (type === 'express') {
    adapter.getInstance<{ use(middleware: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void): void }>().use(expressMiddleware(receiver, body, EXPRESS_FIX));
  } else {
    void adapter.getInstance<FastifyInstance>().register(fastifyWebhookRoute(receiver, body));
  }
}

/** Finds the `@OnWebhook` methods once every provider exists, and closes the receiver after the HTTP server has closed. */
function lifecycle(receiver: Receiver, discovery: DiscoveryService, scanner: MetadataScanner) {
  const { handlers } = builtBy.get(receiver)!;
  return {
    onModuleInit(): void {
      const seen = new Set<object>();
      for (const wrapper of [...discovery.getProviders(), ...discovery.getControllers()]) {
        const instance: unknown = wrapper.instance;
        if (typeof instance !== 'object' || instance === null || seen.has(instance)) continue;
        seen.add(instance);
        const prototype = Object.getPrototypeOf(instance) as object | null;
        for (const name of scanner.getAllMethodNames(prototype)) {
          const method = (instance as Record<string, unknown>)[name];
          if (typeof method !== 'function') continue;
          const patterns = reflector.get<EventPattern[] | undefined>(ON_WEBHOOK, method);
          if (patterns === undefined) continue;
          if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) {
            throw new ConfigurationError({ option: 'OnWebhook', reason: `is on ${String(wrapper.name as unknown)}.${name}, a request-scoped or transient provider: handlers need one instance (a default-scoped provider)` });
          }
          handlers.register(patterns, (event, context) => (method as (event: WebhookEvent, context: HandlerContext) => unknown).call(instance, event, context));
        }
      }
      handlers.start();
    },
    onApplicationShutdown(): Promise<void> {
      return receiver.close();
    },
  };
}
