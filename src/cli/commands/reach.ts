// `accord reach [ADDRESS...]`: who can reach what (DESIGN §4 "Reach"), now and per the files. It reads
// the account and plans exactly as plan does; the plan's result is "per the files". When the files
// cannot be planned against the account, what it lets through now is shown all the same, with the
// plan's error, and the run exits 1.
import type { Argv } from 'yargs';
import type { DesiredState } from '../../config/model.js';
import { parseAddress } from '../../net/cidr.js';
import { VERSION } from '../../version.js';
import type { CommandFactory } from '../command.js';
import { connectionOptions } from '../connection-options.js';
import { desiredFileOption } from '../file-option.js';
import type { Io } from '../io.js';
import { loadDesiredOrReport, PlanUsageError } from '../planning.js';
import type { ReadOnlyPlanned } from '../read-only-plan.js';

export const reachCommand: CommandFactory = (io, setExit) => (y: Argv) =>
  y.command(
    'reach [address..]',
    'Show which source addresses each traffic type and TCP edge lets through, now and per the files, and why for each ADDRESS',
    (b) =>
      connectionOptions(
        b
          .positional('address', {
            type: 'string',
            array: true,
            describe: 'An IPv4 or IPv6 address to explain (203.0.113.7, 2001:db8::1)',
          })
          .option('file', desiredFileOption)
          .option('json', { type: 'boolean', describe: 'Print the report as JSON' })
          .example('accord reach', 'what every type and TCP edge lets through, now and after apply')
          .example('accord reach 203.0.113.7', 'why that address can or cannot get in, per scope'),
      ),
    async (argv) => {
      const addresses = (argv.address ?? []).map(String);
      checkAddresses(addresses);
      const desired = await loadDesiredOrReport(argv.file, io, argv.json);
      if (!desired) {
        setExit(1);
        return;
      }
      const { withClient } = await import('../connection.js');
      const { planOrAccount } = await import('../read-only-plan.js');
      const { planned, apiUrl } = await withClient(argv, io, async (client) => {
        const read = await planOrAccount(client, desired, io);
        // Every TCP edge and endpoint is a scope here, the ones the files do not name too: reach lists
        // them even when the plan did not (it lists them only when a change could change their reach).
        const { withListedScopes } = await import('../planning.js');
        read.account = await withListedScopes(client, read.account, {
          needsEdges: read.account.tcpEdges === undefined,
          needsEndpoints: read.account.endpoints === undefined,
        });
        return { planned: read, apiUrl: client.baseUrl };
      });
      const render = await import('../../render/reach-report.js');
      const report = await reachReportOf(desired, planned, addresses, apiUrl, io);
      io.stdout(argv.json ? render.renderReachJson(report) : render.renderReachText(report));
      // What the account does now is shown; what the files would do is not known: an error all the same.
      if (planned.planError) throw planned.planError;
      setExit(0);
    },
  );

/**
 * The report of the account now and per the files; when the files cannot be planned against the
 * account, of the account now, with the plan's error in place of what the files would do.
 */
async function reachReportOf(
  desired: DesiredState,
  planned: ReadOnlyPlanned,
  addresses: readonly string[],
  apiUrl: string,
  io: Pick<Io, 'now'>,
) {
  const { picturesOf, livePicture } = await import('../../traffic/reach.js');
  const { policyNames } = await import('../../traffic/governance.js');
  const render = await import('../../render/reach-report.js');
  const { plan, account } = planned;
  const notes = [
    ...(account.tcpEdges === 'unavailable' ? [UNLISTED_EDGES] : []),
    ...(account.endpoints === 'unavailable' ? [UNLISTED_ENDPOINTS] : []),
  ];
  const context = {
    tool_version: plan?.tool_version ?? VERSION,
    api_url: plan?.api_url ?? apiUrl,
    owner: desired.owner,
    created_at: plan?.created_at ?? (io.now?.() ?? new Date()).toISOString(),
  };
  if (plan) {
    const pictures = picturesOf(plan.changes, account);
    return render.reachReport(pictures, policyNames(plan.changes), addresses, context, notes);
  }
  // The policies this owner's markers name, by their keys in the files.
  const names = new Map<string, string>();
  for (const p of account.managed.ip_policy ?? [])
    if (p.marker?.owner === desired.owner) names.set(p.id, p.marker.key);
  const before = livePicture(account);
  return render.reachReport({ before }, names, addresses, context, notes, planned.planError.report());
}

const UNLISTED_EDGES =
  'The service has no list of TCP edges (GET /edges/tcp), so only the TCP edges the files name are shown; others may have an IP restriction module of their own.';

const UNLISTED_ENDPOINTS =
  'The service has no list of endpoints (GET /endpoints), so no endpoint is shown; their traffic policies may restrict them further.';

/** Every ADDRESS is one IPv4 or IPv6 address; said before anything is read. */
function checkAddresses(addresses: readonly string[]): void {
  for (const text of addresses) {
    if (parseAddress(text)) continue;
    const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);
    const slash = text.indexOf('/');
    const range = slash > 0 ? parseAddress(text.slice(0, slash)) : undefined;
    // A word that reads as an option can only have come after `--`, where every word is an address.
    const option = /^--?[A-Za-z]/.test(text)
      ? '; after -- every word is an address: put options before --'
      : '';
    throw new PlanUsageError(
      range
        ? `${shown} is a range, not an address; accord reach explains one address at a time: give one, such as ${text.slice(0, slash)}.`
        : `${shown} is not an IPv4 or IPv6 address; give one such as 203.0.113.7 or 2001:db8::1 (no port, no zone, no host name)${option}.`,
    );
  }
}
