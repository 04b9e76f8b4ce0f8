// The docs show commands a reader will type: every `accord ...` line in README.md and docs/*.md must
// get through the real argument parser (an unknown command, flag or flag value fails here), and every
// flag a command's --help lists must be in docs/cli.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIo, runProcess } from '../support/cli.js';
import { ROOT } from '../support/server.js';

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
      for (const flag of rest.join(' ').match(/(?<![\w-])--?[a-z][a-z-]*/g) ?? []) {
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
