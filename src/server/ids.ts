// Resource identifiers of the local service (DESIGN §7): a kind prefix and 27 base62 characters that sort
// by creation time. The value is a millisecond timestamp above 112 random bits, plus an offset that makes
// every generated ID start with "5" (until the year 2200), so hand-written seed IDs such as
// "ipp_2demo..." sort as older. Within one millisecond each new ID is the previous one plus one, so IDs
// made by one process are strictly increasing.
import { randomBytes } from 'node:crypto';
import { ID_LENGTH, ID_PREFIXES, type IdKind } from '../ids.js';

export { type IdKind, isIdOf } from '../ids.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_BITS = 112n;
const OFFSET = 5n * 62n ** 26n;

function encode(value: bigint): string {
  let out = '';
  let v = value;
  for (let i = 0; i < ID_LENGTH; i++) {
    out = ALPHABET[Number(v % 62n)]! + out;
    v /= 62n;
  }
  return out;
}

/** Makes time-sortable IDs; one generator per server so its IDs never repeat or go backwards. */
export class IdGenerator {
  private last = 0n;
  constructor(private readonly now: () => Date = () => new Date()) {}

  next(kind: IdKind): string {
    const ms = BigInt(this.now().getTime());
    let value = OFFSET + ((ms << RANDOM_BITS) | BigInt(`0x${randomBytes(14).toString('hex')}`));
    if (value <= this.last) value = this.last + 1n;
    this.last = value;
    return ID_PREFIXES[kind] + encode(value);
  }
}
