import { createServer } from 'node:http';
import { answerClientErrors } from '../../http/client-error.js';
import type { AddressInfo } from 'node:net';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { MetricsMeter } from '../../metrics/meter.js';

/** Where `dispatcher run --metrics-port` serves: this machine only. */
export const METRICS_HOST = '127.0.0.1';
export const METRICS_PATH = '/metrics';

export interface MetricsServer {
  meter: MetricsMeter;
  url: string;
  close(): Promise<void>;
}

/**
 * The OpenTelemetry SDK with its Prometheus exporter, served on 127.0.0.1: `GET /metrics` answers
 * the Prometheus text format, collected at each request. Both are optional peer dependencies,
 * never bundled: this module is loaded only by `dispatcher run --metrics-port` (run.ts), which
 * says what to install when they are missing.
 */
export async function startMetricsServer(port: number): Promise<MetricsServer> {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ readers: [exporter] });
  const server = answerClientErrors(createServer((request, response) => {
    if (request.method === 'GET' && new URL(request.url ?? '/', 'http://localhost').pathname === METRICS_PATH) {
      exporter.getMetricsRequestHandler(request, response);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found: the metrics are at ${METRICS_PATH}\n`);
  }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, METRICS_HOST, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    meter: provider.getMeter('acct-webhook'),
    url: `http://${METRICS_HOST}:${bound}${METRICS_PATH}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await provider.shutdown();
    },
  };
}
