// CIDRs as the service reads them wherever a request gives one (an IP policy rule's `cidr`, a traffic
// policy's `restrict-ips` lists): a range with a mask, written with the lowest address of its range,
// refused with the production service's codes (1406 unreadable, 1413 no mask, 1409 not the lowest).
import { type Cidr, isCidrProblem, parseAddress, parseCidr } from '../net/cidr.js';
import { ServiceError } from './errors.js';

/** The CIDR `text`, or a 400 whose message starts with `where` (`field "cidr"`). */
export function readCidr(text: string, where = 'field "cidr"'): Cidr {
  const parsed = parseCidr(text);
  if (!isCidrProblem(parsed)) return parsed;
  const code =
    parsed.kind === 'not-lowest'
      ? 'ERR_NGROK_1409'
      : !text.includes('/') && parseAddress(text)
        ? 'ERR_NGROK_1413'
        : 'ERR_NGROK_1406';
  throw new ServiceError(code, `${where}: ${parsed.problem}`);
}
