// `accord reach [ADDRESS...]`: who can reach what (DESIGN §4 "Reach"), now and per the files. It reads
// the account and plans exactly as plan does; the plan's result is "per the files".
import type { Argv } from 'yargs';
import { parseAddress } from '../../net/cidr.js';
import type { CommandFactory } from '../command.js';
import { connectionOptions } from '../connection-options.js';
import { desiredFileOption } from '../file-option.js';
import { loadDesiredOrReport, PlanUsageError, planAgainstAccount, READ_ONLY } from '../planning.js';

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
      const { plan, account } = await withClient(argv, io, async (client) => {
        const planned = await planAgainstAccount(client, desired, READ_ONLY, io);
        // Every TCP edge is a scope here, the ones the files do not name too: reach lists them even
        // when the plan did not (it lists them only when a policy it changes could change their reach).
        if (planned.account.tcpEdges !== undefined) return planned;
        const { readTcpEdges } = await import('../../plan/live.js');
        const { liveEdges } = await import('../../plan/state.js');
        const tcpEdges = liveEdges(await readTcpEdges(client));
        return { ...planned, account: { ...planned.account, tcpEdges } };
      });
      const { picturesOf } = await import('../../plan/reach.js');
      const { policyNames } = await import('../../plan/governance.js');
      const render = await import('../../plan/render/reach-report.js');
      const report = render.reachReport(
        picturesOf(plan.changes, account),
        policyNames(plan.changes),
        addresses,
        {
          tool_version: plan.tool_version,
          api_url: plan.api_url,
          owner: plan.owner,
          created_at: plan.created_at,
        },
        account.tcpEdges === 'unavailable' ? [UNLISTED_EDGES] : [],
      );
      io.stdout(argv.json ? render.renderReachJson(report) : render.renderReachText(report));
      setExit(0);
    },
  );

const UNLISTED_EDGES =
  'The service has no list of TCP edges (GET /edges/tcp), so only the TCP edges the files name are shown; others may have an IP restriction module of their own.';

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
