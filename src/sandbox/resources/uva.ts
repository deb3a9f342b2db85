import { z } from 'zod';
import { isoNow, type SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import { listParameters, page } from '../http/pagination.js';
import { ok } from '../http/response.js';
import type { Route } from '../http/router.js';
import { parseInput } from '../http/validate.js';
import type { SandboxObjects } from '../objects.js';

type Uva = SandboxObjects['uva'];

/** The sandbox business's tax number (Steuernummer). */
export const SANDBOX_TAX_NUMBER = '12-345/6789';
/** Kennzahlen of form U30 the sandbox fills: revenue (000) and the bases at 20 % (022), 13 % (006) and 10 % (029). */
const KZ_BY_RATE: Record<number, string> = { 20: '022', 13: '006', 10: '029' };

const createUva = z.strictObject({ period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2]|Q[1-4])$/, { error: 'must be YYYY-MM or YYYY-Qn' }) });
const rejectUva = z.strictObject({ code: z.string().min(1).max(100).optional(), message: z.string().max(500).optional() });

/**
 * Sandbox helpers for the VAT return (the document lists no endpoint): prepare a draft from the
 * period's invoices, submit it (uva.submitted), and play the tax office: confirm (uva.confirmed)
 * or reject (uva.rejected).
 */
export function uvaRoutes(context: SandboxContext): Route[] {
  const { objects, emitter } = context;
  const transition = (id: string, from: Uva['status']): Uva => {
    const uva = objects.get('uva', id);
    if (uva.status !== from) throw SandboxError.validation('status', `the VAT return is ${uva.status}; this needs a ${from} one`);
    return uva;
  };
  return [
    { method: 'GET', path: '/v1/sandbox/uva', handler: ({ query }) => page(objects.all('uva'), listParameters(query, ['created_at', 'amount', 'period'])) },
    { method: 'GET', path: '/v1/sandbox/uva/:id', handler: ({ params }) => ok(objects.get('uva', params.id!)) },
    {
      method: 'POST',
      path: '/v1/sandbox/uva',
      handler: ({ body }) => ok(objects.insert('uva', draftReturn(context, parseInput(createUva, body).period)), 201),
    },
    {
      method: 'POST',
      path: '/v1/sandbox/uva/:id/submit',
      handler: async ({ params }) => {
        const uva = transition(params.id!, 'draft');
        const reference = `FON-${uva.period.slice(0, 4)}-${String(context.ids.sequence('finanzonline')).padStart(7, '0')}`;
        const submittedAt = isoNow(context);
        const submitted = objects.save('uva', { ...uva, status: 'submitted', submitted_at: submittedAt, finanzonline_reference: reference });
        await emitter.emit('uva.submitted', { ...submitted, status: 'submitted', submitted_at: submittedAt }, { status: 'draft', submitted_at: null });
        return ok(submitted);
      },
    },
    {
      method: 'POST',
      path: '/v1/sandbox/uva/:id/confirm',
      handler: async ({ params }) => {
        const confirmedAt = isoNow(context);
        const confirmed = { ...transition(params.id!, 'submitted'), status: 'confirmed' as const, confirmed_at: confirmedAt };
        objects.save('uva', confirmed);
        await emitter.emit('uva.confirmed', confirmed, { status: 'submitted' });
        return ok(confirmed);
      },
    },
    {
      method: 'POST',
      path: '/v1/sandbox/uva/:id/reject',
      handler: async ({ params, body }) => {
        const input = parseInput(rejectUva, body);
        const rejection = { code: input.code ?? 'KZ_SUM_MISMATCH', message: input.message ?? 'Summe der Kennzahlen weicht von KZ 000 ab' };
        const rejected = { ...transition(params.id!, 'submitted'), status: 'rejected' as const, rejected_at: isoNow(context), rejection };
        objects.save('uva', rejected);
        await emitter.emit('uva.rejected', rejected, { status: 'submitted' });
        return ok(rejected);
      },
    },
  ];
}

/** A draft return whose figures are the period's issued invoices (drafts and cancelled ones left out). */
function draftReturn(context: SandboxContext, period: string): Uva {
  const months = periodMonths(period);
  const invoices = context.objects.all('invoice').filter((invoice) => months.includes(invoice.issue_date.slice(0, 7)) && invoice.status !== 'draft' && invoice.status !== 'cancelled');
  const figures: Record<string, number> = { '000': 0 };
  let vat = 0;
  for (const line of invoices.flatMap((invoice) => invoice.lines)) {
    figures['000'] = (figures['000'] ?? 0) + line.net_amount;
    const kz = KZ_BY_RATE[line.vat_rate];
    if (kz !== undefined) figures[kz] = (figures[kz] ?? 0) + line.net_amount;
    vat += line.vat_amount;
  }
  return {
    id: context.ids.next('uva'),
    period,
    status: 'draft',
    uid_number: context.account.business.uid_number,
    tax_number: SANDBOX_TAX_NUMBER,
    amount: vat,
    currency: 'EUR',
    figures,
    due_date: dueDate(months.at(-1)!),
    submitted_at: null,
    finanzonline_reference: null,
    created_at: isoNow(context),
  };
}

/** `2026-10` → [`2026-10`]; `2026-Q3` → [`2026-07`, `2026-08`, `2026-09`]. */
function periodMonths(period: string): string[] {
  const [year, part = ''] = period.split('-');
  if (!part.startsWith('Q')) return [period];
  const first = (Number(part.slice(1)) - 1) * 3 + 1;
  return [first, first + 1, first + 2].map((month) => `${year}-${String(month).padStart(2, '0')}`);
}

/** The 15th of the second month after the period's last month. */
function dueDate(lastMonth: string): string {
  const [year, month] = lastMonth.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month + 1, 15)).toISOString().slice(0, 10);
}
