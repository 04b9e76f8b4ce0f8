// Resource identifiers of the local service (DESIGN §7): a kind prefix and 27 base62 characters that sort
// by creation time. The value is a millisecond timestamp above 112 random bits, plus an offset that makes
// every generated ID start with "5" (until the year 2200), so hand-written seed IDs such as
// "ipp_2demo..." sort as older. Within one millisecond each new ID is the previous one plus one, so IDs
// made by one process are strictly increasing.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LENGTH = 27;
const RANDOM_BITS = 112n;
const OFFSET = 5n * 62n ** 26n;

export const ID_PREFIXES = {
  ip_restriction: 'ipx_',
  certificate_authority: 'ca_',
  ssh_host_certificate: 'shcrt_',
  ip_policy: 'ipp_',
  ssh_certificate_authority: 'sshca_',
  tcp_edge: 'edgtcp_',
  https_edge: 'edghts_',
  https_edge_route: 'edghtsrt_',
  operation: 'op_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const BODY = /^[0-9A-Za-z]{27}$/;

export function isIdOf(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIXES[kind];
  return value.startsWith(prefix) && BODY.test(value.slice(prefix.length));
}

function encode(value: bigint): string {
  let out = '';
  let v = value;
  for (let i = 0; i < LENGTH; i++) {
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
