// Every error class accord reports, its stable code, and docs/cli.md's line for it (as undici's
// test/errors.js lists its classes). The classes are also found in src/ by reading it, so that a new one
// fails here until it has its own code, a row below and a row in the docs.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { UnexpectedResponseError } from '../src/account/read.js';
import { ApiKeyError } from '../src/api/client.js';
import {
  ApiConnectionError,
  ApiError,
  ClientClosedError,
  DeadlineError,
  OutcomeUnknownError,
  PaginationError,
  RefusedRequestError,
  ResponseTooLargeError,
} from '../src/api/errors.js';
import { CertDirError, prepareCertDir } from '../src/apply/certs.js';
import { CreateFailedError } from '../src/apply/create.js';
import { DependencyError } from '../src/apply/executor.js';
import { PlanFileError, readPlanFile } from '../src/apply/planfile.js';
import { StalePlanError, UnsafePlanError } from '../src/apply/stale.js';
import { ApplyUsageError, NotApprovedError } from '../src/cli/commands/apply.js';
import { ExportUsageError } from '../src/cli/commands/export.js';
import { InitError } from '../src/cli/commands/init.js';
import { ServeUsageError } from '../src/cli/commands/serve.js';
import { ConnectionConfigError, createClient } from '../src/cli/connection.js';
import type { Io } from '../src/cli/io.js';
import { UsageError } from '../src/cli/main.js';
import { PlanUsageError } from '../src/cli/planning.js';
import { ConfigError } from '../src/config/problems.js';
import { AccordError, errorReport, INTERNAL_ERROR_CODE } from '../src/errors.js';
import { ExportError } from '../src/export/read.js';
import { PlanError } from '../src/plan/planner.js';
import type { ServiceContext } from '../src/server/collections.js';
import { DataFileError, ListenError, NativeModuleError } from '../src/server/index.js';
import { loadSeed, SeedError } from '../src/server/seed.js';

type ErrorClass = (abstract new (...args: never[]) => AccordError) & { code: string };

interface Scenario {
  ErrorClass: ErrorClass;
  code: string;
  exitCode: number;
  make: () => AccordError;
}

const scenario = (ErrorClass: ErrorClass, code: string, make: () => AccordError, exitCode = 1): Scenario => ({
  ErrorClass,
  code,
  exitCode,
  make,
});
const message = (C: new (message?: string) => AccordError) => () => new C('what went wrong');

const SCENARIOS: Scenario[] = [
  scenario(AccordError, 'ACCORD_ERROR', message(AccordError)),
  scenario(
    ConfigError,
    'ACCORD_CONFIG',
    () => new ConfigError([{ file: 'accord.yaml', line: 1, col: 1, path: '', message: 'bad' }]),
  ),
  scenario(
    ApiError,
    'ACCORD_API',
    () => new ApiError({ status: 409, method: 'POST', path: '/ip_policies', msg: 'conflict' }),
  ),
  scenario(
    ApiConnectionError,
    'ACCORD_API_CONNECTION',
    () => new ApiConnectionError('GET', '/x', 'http://127.0.0.1:1', 'ECONNREFUSED', 'refused'),
  ),
  scenario(
    OutcomeUnknownError,
    'ACCORD_OUTCOME_UNKNOWN',
    () => new OutcomeUnknownError('POST', '/x', 'ECONNRESET', 'reset'),
  ),
  scenario(ClientClosedError, 'ACCORD_CLIENT_CLOSED', () => new ClientClosedError('GET', '/x')),
  scenario(
    DeadlineError,
    'ACCORD_DEADLINE',
    () =>
      new DeadlineError('GET', '/x', {
        deadlineMs: 300_000,
        attempts: 4,
        elapsedMs: 290_000,
        last: 'was answered 503',
      }),
  ),
  scenario(ResponseTooLargeError, 'ACCORD_UNEXPECTED_RESPONSE', message(ResponseTooLargeError)),
  scenario(PaginationError, 'ACCORD_PAGINATION', message(PaginationError)),
  scenario(RefusedRequestError, 'ACCORD_REFUSED_REQUEST', message(RefusedRequestError)),
  scenario(ApiKeyError, 'ACCORD_API_KEY', message(ApiKeyError)),
  scenario(ConnectionConfigError, 'ACCORD_CONNECTION_CONFIG', message(ConnectionConfigError)),
  scenario(UnexpectedResponseError, 'ACCORD_UNEXPECTED_RESPONSE', message(UnexpectedResponseError)),
  scenario(PlanError, 'ACCORD_PLAN', () => new PlanError([{ code: 'traffic_cycle', cycle: ['a', 'b'] }])),
  scenario(PlanFileError, 'ACCORD_PLAN_FILE', message(PlanFileError)),
  scenario(StalePlanError, 'ACCORD_STALE_PLAN', message(StalePlanError)),
  scenario(UnsafePlanError, 'ACCORD_UNSAFE_PLAN', message(UnsafePlanError), 3),
  scenario(NotApprovedError, 'ACCORD_NOT_APPROVED', message(NotApprovedError)),
  scenario(CreateFailedError, 'ACCORD_CREATE_FAILED', message(CreateFailedError)),
  scenario(DependencyError, 'ACCORD_DEPENDENCY', message(DependencyError)),
  scenario(CertDirError, 'ACCORD_CERT_DIR', message(CertDirError)),
  scenario(ExportError, 'ACCORD_EXPORT', message(ExportError)),
  scenario(InitError, 'ACCORD_INIT', message(InitError)),
  scenario(UsageError, 'ACCORD_USAGE', message(UsageError)),
  scenario(PlanUsageError, 'ACCORD_USAGE', message(PlanUsageError)),
  scenario(ApplyUsageError, 'ACCORD_USAGE', message(ApplyUsageError)),
  scenario(ExportUsageError, 'ACCORD_USAGE', message(ExportUsageError)),
  scenario(ServeUsageError, 'ACCORD_USAGE', message(ServeUsageError)),
  scenario(ListenError, 'ACCORD_SERVE_LISTEN', message(ListenError)),
  scenario(DataFileError, 'ACCORD_SERVE_DATA_FILE', message(DataFileError)),
  scenario(NativeModuleError, 'ACCORD_SERVE_NATIVE_MODULE', message(NativeModuleError)),
  scenario(SeedError, 'ACCORD_SERVE_SEED', message(SeedError)),
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every class in src/ that extends AccordError, directly or through another, with its file. */
function declaredErrorClasses(): { name: string; file: string }[] {
  const declared: { name: string; parent: string; file: string }[] = [];
  for (const file of sourceFiles('src')) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\bclass\s+(\w+)\s+extends\s+([\w.]+)/g)) {
      declared.push({ name: m[1] ?? '', parent: m[2] ?? '', file });
    }
  }
  const errors = new Set(['AccordError']);
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of declared) {
      if (errors.has(c.parent) && !errors.has(c.name)) {
        errors.add(c.name);
        grew = true;
      }
    }
  }
  return [
    { name: 'AccordError', file: 'src/errors.ts' },
    ...declared.filter((c) => errors.has(c.name)).map(({ name, file }) => ({ name, file })),
  ];
}

/** The codes in docs/cli.md's "Error codes" table, with the row of each. */
function documentedCodes(): Map<string, string> {
  const docs = readFileSync('docs/cli.md', 'utf8');
  const section = docs.split(/^## /m).find((s) => s.startsWith('Error codes')) ?? '';
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `(ACCORD_[A-Z_]+)` +\|(.*)$/gm)) rows.set(m[1] ?? '', m[2] ?? '');
  return rows;
}

describe('error classes', () => {
  for (const s of SCENARIOS) {
    it(`${s.ErrorClass.name} has the code ${s.code}`, () => {
      expect(Object.hasOwn(s.ErrorClass, 'code'), `${s.ErrorClass.name} declares its own static code`).toBe(
        true,
      );
      expect(s.ErrorClass.code).toBe(s.code);
      const err = s.make();
      expect(err).toBeInstanceOf(s.ErrorClass);
      expect(err).toBeInstanceOf(AccordError);
      expect(err).toBeInstanceOf(Error);
      expect(err.code).toBe(s.code);
      expect(err.name).toBe(s.ErrorClass.name);
      expect(err.exitCode).toBe(s.exitCode);
      expect(errorReport(err)).toMatchObject({ code: s.code, message: err.message });
    });
  }

  it('the list above is every class in src/ that extends AccordError, each exported by its file', async () => {
    const found = declaredErrorClasses();
    for (const { name, file } of found) {
      const exported = (await import(pathToFileURL(join(process.cwd(), file)).href)) as Record<
        string,
        unknown
      >;
      expect(
        exported[name],
        `${relative('.', file)} exports ${name}, so that its code can be checked`,
      ).toBeDefined();
      expect(
        SCENARIOS.some((s) => s.ErrorClass === exported[name]),
        `${name} (${file}) is listed in test/errors.test.ts with its code`,
      ).toBe(true);
    }
    expect(new Set(found.map((c) => c.name)).size).toBe(SCENARIOS.length);
  });

  it('codes are ACCORD_ names, and docs/cli.md documents each one and no other', () => {
    const documented = documentedCodes();
    const codes = new Set([...SCENARIOS.map((s) => s.code), INTERNAL_ERROR_CODE]);
    for (const code of codes) {
      expect(code).toMatch(/^ACCORD_[A-Z]+(_[A-Z]+)*$/);
      expect(documented.has(code), `docs/cli.md "Error codes" has a row for ${code}`).toBe(true);
      expect(
        documented.get(code)?.trim().length ?? 0,
        `the row for ${code} says what it means`,
      ).toBeGreaterThan(20);
    }
    expect([...documented.keys()].sort()).toEqual([...codes].sort());
  });
});

describe('errorReport', () => {
  it("gives an API error's HTTP status, the service's error_code and operation id", () => {
    const err = new ApiError({
      status: 409,
      method: 'POST',
      path: '/ip_policies',
      errorCode: 'ERR_CONFLICT',
      msg: 'already exists',
      operationId: 'op_1',
    });
    expect(errorReport(err)).toEqual({
      code: 'ACCORD_API',
      message: err.message,
      http_status: 409,
      error_code: 'ERR_CONFLICT',
      operation_id: 'op_1',
    });
    const bare = new ApiError({ status: 502, method: 'GET', path: '/x', msg: 'no message' });
    expect(errorReport(bare)).toEqual({ code: 'ACCORD_API', message: bare.message, http_status: 502 });
  });

  it("gives a file's problems, and an unexpected error the internal code", () => {
    const problem = { file: 'a.yaml', line: 2, col: 3, path: 'ip_restrictions.x', message: 'bad' };
    expect(errorReport(new ConfigError([problem]))).toMatchObject({
      code: 'ACCORD_CONFIG',
      problems: [problem],
    });
    expect(errorReport(new TypeError('x is undefined'))).toEqual({
      code: INTERNAL_ERROR_CODE,
      message: 'x is undefined',
    });
    expect(errorReport('thrown text')).toEqual({ code: INTERNAL_ERROR_CODE, message: 'thrown text' });
  });
});

describe('an error that wraps another keeps it as its cause', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-cause-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const io: Io = { stdout: () => {}, stderr: () => {}, isTty: false, env: {}, cwd: dir };
  const thrown = async (f: () => unknown): Promise<AccordError> => {
    try {
      await f();
    } catch (err) {
      if (err instanceof AccordError) return err;
      throw err;
    }
    throw new Error('nothing was thrown');
  };
  const causeCode = (err: AccordError) => (err.cause as NodeJS.ErrnoException | undefined)?.code;

  it('a saved plan that cannot be read or is not JSON', async () => {
    const missing = await thrown(() => readPlanFile(join(dir, 'missing.json'), 'missing.json'));
    expect(missing.code).toBe('ACCORD_PLAN_FILE');
    expect(causeCode(missing)).toBe('ENOENT');
    writeFileSync(join(dir, 'text.json'), 'not json');
    const text = await thrown(() => readPlanFile(join(dir, 'text.json'), 'text.json'));
    expect(text.code).toBe('ACCORD_PLAN_FILE');
    expect(text.cause).toBeInstanceOf(SyntaxError);
  });

  it('--cert-dir under a file, and --api-key-file missing', async () => {
    writeFileSync(join(dir, 'a-file'), '');
    const certDir = await thrown(() => prepareCertDir(join(dir, 'a-file', 'certs')));
    expect(certDir.code).toBe('ACCORD_CERT_DIR');
    expect(causeCode(certDir)).toBe('ENOTDIR');
    const keyFile = await thrown(() =>
      createClient(
        {
          'api-url': 'http://127.0.0.1:1',
          'api-key-file': 'no-key',
          parallelism: 4,
          timeout: 30,
          deadline: 300,
          stats: false,
        },
        io,
      ),
    );
    expect(keyFile.code).toBe('ACCORD_CONNECTION_CONFIG');
    expect(causeCode(keyFile)).toBe('ENOENT');
  });

  it('a seed file that is missing or not YAML', async () => {
    const ctx = {} as ServiceContext; // never reached: the file fails first
    const missing = await thrown(() => loadSeed(ctx, join(dir, 'missing.yaml')));
    expect(missing.code).toBe('ACCORD_SERVE_SEED');
    expect(causeCode(missing)).toBe('ENOENT');
    writeFileSync(join(dir, 'bad.yaml'), 'a: [1\n');
    const bad = await thrown(() => loadSeed(ctx, join(dir, 'bad.yaml')));
    expect(bad.code).toBe('ACCORD_SERVE_SEED');
    expect(bad.cause).toBeInstanceOf(Error);
  });
});
