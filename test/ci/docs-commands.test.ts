// The docs show commands a reader will type: every `accord ...` line in README.md and docs/*.md must
// get through the real argument parser (an unknown command, flag or flag value fails here), and every
// flag a command's --help lists must be in docs/cli.md.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIN_API_KEY_LENGTH } from '../../src/api/redact.js';
import { main } from '../../src/cli/main.js';
import { captureIo, runProcess } from '../support/cli.js';
import { ROOT, useSeededService } from '../support/server.js';

const SYNOPSIS = /\[|\.\.\.|<\w/;
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => join('docs', f))].filter((f) =>
  f.endsWith('.md'),
);

interface CommandLine {
  where: string;
  text: string;
  /** A synopsis (`[--json | --markdown]`, `FILE...`) or a command named in a sentence: not run as is. */
  loose: boolean;
}

/** Shell-like words: quotes grouped, `${{ ... }}` and `$VAR` kept as one word. */
function words(text: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\$\{\{[^}]*\}\}\S*|\S+)/g;
  for (const m of text.matchAll(re)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

/** The `accord ...` commands of one line of shell: cut at &&, ||, ;, pipes, redirections and comments. */
function commandsOf(line: string): string[] {
  const withoutComment = line.replace(/\s+#.*$/, '');
  const synopsis = SYNOPSIS.test(withoutComment);
  const parts = synopsis ? [withoutComment] : withoutComment.split(/&&|\|\||;|\||&/);
  return parts
    .map((p) => (synopsis ? p : p.replace(/\s\d?>>?\s*\S+/g, '')).trim())
    .map((p) => p.replace(/^(?:[A-Z_][A-Z0-9_]*=\S+\s+)+/, ''))
    .filter((p) => /^accord\s/.test(p));
}

/** Every `accord ...` command the docs show, in code blocks and in inline code. */
function commandLines(file: string): CommandLine[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: CommandLine[] = [];
  const lines = text.split('\n');
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    const open = /^\s*```(\w*)/.exec(raw);
    if (open) {
      fence = fence === undefined ? (open[1] ?? '') : undefined;
      continue;
    }
    const where = `${file}:${i + 1}`;
    if (fence !== undefined) {
      // Output blocks show a command only after a prompt; shell, YAML and plain blocks show them bare.
      const prompt = /^\s*\$\s+(.*)$/.exec(raw)?.[1];
      const bare = fence === 'text' ? undefined : /^\s*(?:-\s+)?(?:run:\s*)?(.*)$/.exec(raw)?.[1];
      let line = prompt ?? bare ?? '';
      // A shell line starts with a command (lower-case), not with output such as `Error: ...`.
      if (!/^(?:[A-Z_][A-Z0-9_]*=\S+\s+)*[a-z.]/.test(line)) continue;
      while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]?.trim()}`;
      // A synopsis may go on over indented lines.
      while (/\[/.test(line) && /^\s+\[/.test(lines[i + 1] ?? '')) line = `${line} ${lines[++i]?.trim()}`;
      for (const c of commandsOf(line)) found.push({ where, text: c, loose: SYNOPSIS.test(c) });
    } else {
      for (const m of raw.matchAll(/`(accord\s[^`]+)`/g)) {
        for (const c of commandsOf(m[1] ?? '')) found.push({ where, text: c, loose: true });
      }
    }
  }
  return found;
}

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo();
  const code = await main(argv, io, { parseOnly: true });
  return { code, out: io.out, err: io.err };
}

/** The commands `accord --help` lists (the built CLI: yargs prints the top-level help only there). */
async function commandNames(): Promise<string[]> {
  const { stdout } = await runProcess(process.execPath, [join(ROOT, 'bin', 'accord.js'), '--help']);
  return [...stdout.matchAll(/^ {2}accord (\w+)/gm)].map((m) => m[1] ?? '');
}

/** The flags a command's --help lists (`--file`, `-f`, `--no-...` not included). */
async function helpFlags(command: string): Promise<string[]> {
  const { out } = await run([command, '--help']);
  return [...new Set([...out.matchAll(/(?:^|[\s,])(--?[a-z][a-z-]*)/gm)].map((m) => m[1] ?? ''))];
}

const all = DOCS.flatMap(commandLines);

describe('commands in the docs', () => {
  it('finds the commands the docs show', () => {
    expect(all.length).toBeGreaterThan(40);
    expect(all.map((c) => c.text)).toContain('accord plan --out plan.json');
  });

  it.each(all.filter((c) => !c.loose).map((c) => [c.where, c.text]))(
    '%s: %s parses',
    async (_where, text) => {
      const argv = words(text).slice(1);
      const r = await run(argv);
      expect(r.err, `${text}`).toBe('');
      expect(r.code).toBe(0);
    },
  );

  it('give accord serve an API key it takes: at least as long as it asks, wherever the command is shown', () => {
    const short: string[] = [];
    for (const doc of DOCS) {
      for (const m of readFileSync(join(ROOT, doc), 'utf8').matchAll(
        /serve\b[^\n`]*?--api-key[ =]([^\s`]+)/g,
      )) {
        const key = m[1]!;
        if (!/^[$A-Z]/.test(key) && key.length < MIN_API_KEY_LENGTH) short.push(`${doc}: ${m[0]}`);
      }
    }
    expect(short).toEqual([]);
  });

  it('synopses, and commands named in sentences, name only commands and flags that exist', async () => {
    const known = await commandNames();
    expect(known).toContain('plan');
    const problems: string[] = [];
    for (const c of all.filter((c) => c.loose)) {
      const [, command, ...rest] = words(c.text);
      if (command === undefined || command.startsWith('<') || command.startsWith('[')) continue;
      if (!known.includes(command)) {
        // In a sentence, `accord hit an unexpected error` quotes a message; in a synopsis it is a typo.
        if (SYNOPSIS.test(c.text)) problems.push(`${c.where}: unknown command "${command}" in ${c.text}`);
        continue;
      }
      const flags = await helpFlags(command);
      // After `--` every word is an argument, never a flag.
      const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
      for (const flag of options.join(' ').match(/(?<![\w-])--?[a-z][a-z-]*/g) ?? []) {
        if (!flags.includes(flag)) problems.push(`${c.where}: accord ${command} has no ${flag} (${c.text})`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('docs/cli.md', () => {
  const reference = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');

  it('names every flag of every command’s --help', async () => {
    const missing: string[] = [];
    for (const command of await commandNames()) {
      for (const flag of await helpFlags(command)) {
        if (!new RegExp(`\`[^\`]*${flag}(?![\\w-])`).test(reference))
          missing.push(`accord ${command} ${flag}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('statements the docs make about the product', () => {
  const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');

  it('name the plan format that plans have', () => {
    const schema = JSON.parse(text('schemas/plan.schema.json')) as {
      properties: { format_version: { const: number } };
    };
    const format = schema.properties.format_version.const;
    for (const file of DOCS) {
      for (const m of text(file).matchAll(/plan[^.\n]*?\bformat (\d+)/gi)) {
        expect(Number(m[1]), `${file}: ${m[0]}`).toBe(format);
      }
    }
  });

  it('cite only documents that are in the repository', () => {
    for (const file of DOCS) expect(text(file), file).not.toMatch(/\bDESIGN\b|§/);
  });

  it('list every command that reads ACCORD_API_URL in the environment table', async () => {
    const row = /^\| `ACCORD_API_URL` +\| ([^|]+)\|/m.exec(text('docs/cli.md'))?.[1] ?? '';
    const users = row.split(',').map((s) => s.trim());
    for (const command of await commandNames()) {
      if ((await helpFlags(command)).includes('--api-url')) expect(users, command).toContain(command);
    }
  });

  it('say that renaming a key renames the resource, and to remove id: lines once adopted', () => {
    const readme = text('README.md');
    expect(readme).not.toMatch(/renaming a key means deleting/);
    expect(readme).not.toMatch(/`id:` lines may stay or go/);
  });
});

// What the docs say of accord's behaviour, each checked by running the command that shows it.
describe('statements the docs make, each shown by a command', () => {
  const KEY = 'docs_Key_7c1e9b4a2d';
  const server = useSeededService(KEY);
  const doc = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/\s+/g, ' ');
  const dir = mkdtempSync(join(tmpdir(), 'accord-docs-'));
  cpSync(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
  const file = join(dir, 'examples', 'accord.yaml');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const accord = async (argv: string[], env: Record<string, string> = {}) => {
    const io = captureIo({ ACCORD_API_URL: server.url, ACCORD_API_KEY: KEY, ...env }, { cwd: dir });
    const code = await main(argv, io);
    return { code, out: io.out, err: io.err };
  };

  it('cli.md: an error is one paragraph, also for an option given without its value', async () => {
    expect(doc('docs/cli.md')).toContain(
      'An error is one paragraph on stderr, `Error: ...`: what went wrong, where, and what to do.',
    );
    for (const argv of [
      ['plan', '--out'],
      ['plan', '-f'],
      ['plan', '--target'],
      ['apply', '--cert-dir'],
      ['export', '-o'],
      ['export', '--edges'],
      ['export', '--split'],
      ['serve', '--port'],
    ]) {
      const r = await accord(argv);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.err, argv.join(' ')).toMatch(/^Error: [^\n]+\n$/);
    }
  });

  it('apply.md: a change waits for those in its depends_on, and is skipped when one fails', async () => {
    const apply = doc('docs/apply.md');
    expect(apply).not.toContain('no change waits for another');
    expect(apply).toContain('one line per skipped change (a change waits for those in its `depends_on`');
    const r = await accord(['plan', '-f', join(ROOT, 'examples', 'accord.yaml'), '--json']);
    const plan = JSON.parse(r.out) as { changes: { address: string; depends_on: string[] }[] };
    expect(plan.changes.filter((c) => c.depends_on.length > 0).length).toBeGreaterThan(0);
  });

  it.skipIf(spawnSync('script', ['--version']).status !== 0)(
    'README: the prompt is the one apply asks on a terminal, URL included',
    async () => {
      const quoted = /asks `(Do you want to make these N changes to URL\? Only "yes" will be accepted)`/.exec(
        doc('README.md'),
      )?.[1];
      expect(quoted).toBeDefined();
      const command = [
        process.execPath,
        join(ROOT, 'bin', 'accord.js'),
        'apply',
        '-f',
        join(ROOT, 'examples', 'accord.yaml'),
      ]
        .map((a) => `'${a}'`)
        .join(' ');
      const screen = await new Promise<string>((done, fail) => {
        const child = spawn('script', ['-qec', command, '/dev/null'], {
          env: {
            PATH: process.env.PATH ?? '',
            ACCORD_API_URL: server.url,
            ACCORD_API_KEY: KEY,
            NO_COLOR: '1',
            TERM: 'dumb',
          },
        });
        let out = '';
        let answered = false;
        // The answer is written once; a terminal that has closed by then refuses it (EPIPE), which
        // the screen's text already shows.
        child.stdin.on('error', () => {});
        child.stdout.on('data', (d) => {
          out += d;
          if (!answered && out.includes('will be accepted: ')) {
            answered = true;
            child.stdin.write('no\n');
          }
        });
        child.on('error', fail);
        child.on('close', () => done(out.replaceAll('\r', '')));
      });
      const shape = (quoted ?? '')
        .replace('N', '\\d+')
        .replace('URL', 'http://127\\.0\\.0\\.1:\\d+')
        .replace('?', '\\?');
      expect(screen).toMatch(new RegExp(shape));
    },
  );

  it("ci.md: the action's output exitcode is accord's, for apply too", () => {
    expect(doc('docs/ci.md')).toContain(
      "Its output `exitcode` is accord's exit code, for every command: `plan` (with `--detailed-exitcode`), `apply` and `drift`.",
    );
    const action = readFileSync(join(ROOT, 'action.yml'), 'utf8');
    expect(action).toMatch(
      /value: \$\{\{ steps\.plan\.outputs\.exitcode \|\| steps\.apply\.outputs\.exitcode \|\| steps\.drift\.outputs\.exitcode \}\}/,
    );
    // The apply step writes it (test/ci/github-actions.test.ts runs the action and reads it).
    const step = readFileSync(join(ROOT, 'action', 'accord.mjs'), 'utf8');
    expect(/function apply\(\) \{[\s\S]*?output\('exitcode', String\(code\)\)[\s\S]*?\n\}/.test(step)).toBe(
      true,
    );
  });

  it('cli.md: ACCORD_USAGE is an --out that cannot be written, said before anything is planned', async () => {
    expect(doc('docs/cli.md')).toMatch(
      /`ACCORD_USAGE` +\| A command, flag or flag value is wrong \(unknown flag, `--out` not writable/,
    );
    const r = await accord(['plan', '-f', file, '--json', '--out', 'examples/accord.yaml/x'], {
      ACCORD_API_URL: 'http://127.0.0.1:9',
    });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toEqual({
      error: {
        code: 'ACCORD_USAGE',
        message:
          'cannot save the plan to --out examples/accord.yaml/x: examples/accord.yaml is a file, not a directory; nothing was planned. Give a file path in a writable directory.',
      },
    });
  });

  it('README and cli.md: how long --timeout makes a run wait for a silent service', async () => {
    const help = (await run(['plan', '--help'])).out.replace(/\s+/g, ' ');
    const seconds = Number(/--timeout[\s\S]*?\[default: (\d+)\]/.exec(help)?.[1]);
    expect(seconds).toBe(25);
    expect(help).toMatch(/twice this without any answer and accord gives up/);
    const cli = doc('docs/cli.md');
    expect(cli).toContain(`| \`--timeout S\` | \`${seconds}\` |`);
    expect(cli).toContain(`within 2 × \`--timeout\` + 1 s (${2 * seconds + 1} s by default)`);
    expect(doc('README.md')).toContain(
      'a silent service is given up on after 2 × S (+ at most 1 s of backoff)',
    );
    expect(doc('README.md')).not.toContain('`--timeout` sets how long to wait');
    // The behaviour: test/api/silence.test.ts (virtual time), test/cli/hung-service.test.ts (a process).
  });

  it('cli.md: --api-url defaults to $ACCORD_API_URL, and given without a URL says to leave it out', async () => {
    expect(doc('docs/cli.md')).toContain(
      'Left out, `$ACCORD_API_URL` is used; given without a URL, it is a usage error.',
    );
    const bare = await accord(['plan', '-f', file, '--api-url']);
    expect(bare.code).toBe(1);
    expect(bare.err).toMatch(
      /^Error: --api-url was given without a value\. .* or leave the option out; see accord plan --help\.\n$/,
    );
    const fromEnv = await accord(['plan', '-f', join(ROOT, 'examples', 'accord.yaml')]);
    expect(fromEnv.code, fromEnv.err).toBe(0);
    expect(fromEnv.out).toContain(`(owner platform, ${server.url})`);
  });
  // Last: it applies the example to the service the other tests plan against.
  // A policy's rule group ("# ip_policies.ci-runners: its rules will change") names its file and line too.
  it('README and cli.md: every change of the plan names its file and line, in text and Markdown', async () => {
    expect(doc('README.md')).toMatch(/change of the plan names its file and line/);
    expect((await accord(['apply', '-f', file, '--auto-approve'])).code).toBe(0);
    // A rule changed in a policy that exists: a change of the policy's rule group.
    writeFileSync(file, readFileSync(file, 'utf8').replace('deny: 192.0.2.13/32', 'deny: 192.0.2.14/32'));
    for (const format of [[], ['--markdown']]) {
      const r = await accord(['plan', '-f', file, ...format]);
      const lines = r.out.split('\n').map((l) => l.trim());
      const headers = lines.flatMap((l, i) => (/^# \S+?:? .*\b(will|must)\b/.test(l) ? [i] : []));
      expect(headers.length, r.out).toBeGreaterThan(0);
      for (const i of headers)
        expect(lines[i + 1], `${format.join('')}: ${lines[i]}`).toMatch(/^# \S*accord\.yaml:\d+$/);
    }
  });
});
