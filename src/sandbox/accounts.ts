import type { SandboxAccount } from './context.js';
import type { SandboxState } from './database.js';
import type { SandboxPlan } from './http/rate-limit.js';
import { accountSeed, IdFactory } from './ids.js';

/** An account of a running sandbox, as `sandbox.accounts` lists it: the key that reaches its data and its business. */
export interface SandboxTestAccount {
  /** Its test key: `Authorization: Bearer <apiKey>` reaches this account's data only. */
  readonly apiKey: string;
  /** Its business: `GET /v1/me` shows it, and every event of the account carries its `id` as `business_id`. */
  readonly business: { readonly id: string; readonly name: string; readonly uid_number: string };
}

/** An account as the sandbox runs it: its record, its key, where its ids come from. */
export interface OpenedAccount {
  account: SandboxAccount;
  apiKey: string;
  ids: IdFactory;
}

/** The first account's business: what a one-account sandbox always had. */
const FIRST_NAME = 'Sandbox Handels GmbH';
const FIRST_UID = 'ATU12345675';
const FIRST_EMAIL = 'developer@sandbox.example';

/**
 * The accounts of a sandbox, each with its own ids (seeded from `seed` when given, each account
 * its own sequence), key and business; kept in `sandbox_state`, so a reopened file has the same
 * ones. The first keeps the keys of a one-account file; account n (from 2) keeps its own under
 * `account<n>.`. `apiKey` fixes the first account's key.
 */
export function openAccounts(state: SandboxState, options: { accounts: number; seed: number | null; apiKey?: string | undefined; plan: SandboxPlan }): OpenedAccount[] {
  return Array.from({ length: options.accounts }, (_, index) => {
    const namespace = index === 0 ? '' : `account${index + 1}.`;
    const ids = new IdFactory(state, options.seed === null ? null : accountSeed(options.seed, index), namespace);
    const account = state.get<SandboxAccount>(`${namespace}account`) ?? newAccount(ids, index, options.plan);
    state.set(`${namespace}account`, { ...account, plan: options.plan });
    const given = index === 0 ? options.apiKey : undefined;
    const apiKey = given ?? state.get<string>(`${namespace}api_key`) ?? `sk_test_${ids.next('key').slice(4)}`;
    state.set(`${namespace}api_key`, apiKey);
    return { account: { ...account, plan: options.plan }, apiKey, ids };
  });
}

function newAccount(ids: IdFactory, index: number, plan: SandboxPlan): SandboxAccount {
  const first = index === 0;
  return {
    user_id: ids.next('usr'),
    email: first ? FIRST_EMAIL : `developer${index + 1}@sandbox.example`,
    business: { id: ids.next('biz'), name: first ? FIRST_NAME : `Sandbox Handels ${index + 1} GmbH`, uid_number: first ? FIRST_UID : austrianUid(1_234_567 + index) },
    plan,
  };
}

/** `ATU` + seven digits + their check digit (the Austrian UID's checksum), so every account's UID is a valid one. */
export function austrianUid(sevenDigits: number): string {
  const digits = String(sevenDigits).padStart(7, '0').slice(-7);
  const sum = [...digits].reduce((total, char, position) => {
    const digit = Number(char);
    if (position % 2 === 0) return total + digit;
    const doubled = digit * 2;
    return total + Math.floor(doubled / 10) + (doubled % 10);
  }, 0);
  return `ATU${digits}${(10 - ((sum + 4) % 10)) % 10}`;
}
