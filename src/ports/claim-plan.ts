import type { ClaimRequest } from './dispatch-store.js';

/*
 * How many deliveries a claim may take from each registration: the part of the claim every
 * backend shares, so that the per-registration cap, the rate limit and the fair order are the
 * same on SQLite and PostgreSQL. A backend reads the registrations' state in its claim
 * transaction, asks `claimRooms`, takes up to that many due deliveries of each (earliest first)
 * and orders them with `fairOrder`.
 */

/** A registration as a claim sees it. */
export interface ClaimSubject {
  id: string;
  failure_streak: number;
  delivered_streak: number;
  /** Attempts per second, or null. */
  rate_limit: number | null;
  /** The rate limit's state: the theoretical arrival time of the next attempt (ms), or null. */
  rate_tat: number | null;
  /** Attempts of this registration in flight now, in every process. */
  in_flight: number;
}

/** How many of a registration's due deliveries this claim may take. */
export interface ClaimRoom {
  id: string;
  room: number;
  in_flight: number;
}

/** The registrations that may get something from this claim, with how much. */
export function claimRooms(subjects: readonly ClaimSubject[], request: ClaimRequest): ClaimRoom[] {
  const rooms: ClaimRoom[] = [];
  for (const subject of subjects) {
    let room = request.limit;
    if (request.maxInFlight !== undefined) {
      const cap = subject.failure_streak > 0 ? (request.maxInFlightWhileFailing ?? request.maxInFlight) : healthyCap(subject, request, request.maxInFlight);
      room = Math.min(room, cap - subject.in_flight);
    }
    if (subject.rate_limit !== null) room = Math.min(room, rateRoom(subject.rate_limit, subject.rate_tat, request.now));
    if (room > 0) rooms.push({ id: subject.id, room, in_flight: subject.in_flight });
  }
  return rooms;
}

/** A registration that has not failed: the cap, or less while it has not proven itself (slow start). */
function healthyCap(subject: ClaimSubject, request: ClaimRequest, cap: number): number {
  return request.initialInFlight === undefined ? cap : Math.min(cap, request.initialInFlight + subject.delivered_streak);
}

/*
 * The rate limit is a GCRA (a token bucket kept as one number): attempts are spaced 1000 / rate
 * ms apart on average, with a burst of up to one second's worth (at least one). `rate_tat` is
 * when the next attempt would be due if the budget were used evenly; it lives in the database,
 * so every worker shares one budget.
 */

function rateRoom(rate: number, tat: number | null, now: number): number {
  const interval = 1000 / rate;
  const burst = Math.max(interval, 1000);
  return Math.max(0, Math.floor((now + burst - Math.max(tat ?? now, now)) / interval));
}

/** The rate limit's state after `taken` attempts start at `now`. */
export function rateTatAfter(rate: number, tat: number | null, now: number, taken: number): number {
  return Math.max(tat ?? now, now) + taken * (1000 / rate);
}

/** A due delivery a claim could take: its registration's place, and its own due time. */
export interface ClaimCandidate {
  seq: number;
  webhook_id: string;
  next_attempt_at: number;
  /** Attempts in flight of its registration, plus its rank among the registration's candidates (1 = earliest). */
  fairness: number;
}

/**
 * The order a claim takes candidates in: the registration with the fewest attempts in flight
 * first (counting what this claim gives it), then the earliest due.
 */
export function fairOrder(a: ClaimCandidate, b: ClaimCandidate): number {
  return a.fairness - b.fairness || a.next_attempt_at - b.next_attempt_at || a.seq - b.seq;
}
