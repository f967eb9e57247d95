import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { remark } from 'remark';
import remarkValidateLinks from 'remark-validate-links';
import type { Plugin } from 'unified';
import { engine } from 'unified-engine';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Every markdown link and anchor in README.md, SECURITY.md, docs/ and the SDK's README points at a file and
 * heading that exist (issue #32, item 3), checked by remark-validate-links through unified-engine (what
 * remark-cli runs: `npx remark --use remark-validate-links=repository:false --frail README.md docs`), so links
 * between files and to headings in other files are checked too. `repository: false`: links are checked on
 * disk, not against a GitHub remote (a clone may have none).
 */

const ROOT = join(import.meta.dirname, '../..');
const FILES = ['README.md', 'SECURITY.md', 'docs', 'packages/sdk/README.md'];

interface Problem {
  file: string;
  line: number | undefined;
  reason: string;
}

function checkLinks(cwd: string, files: string[]): Promise<{ checked: string[]; problems: Problem[] }> {
  return new Promise((resolve, reject) => {
    engine(
      {
        processor: remark(),
        cwd,
        files,
        extensions: ['md'],
        // The engine passes the plugin its file set (the second argument), which is what checks across files.
        plugins: [[remarkValidateLinks as unknown as Plugin<unknown[]>, { repository: false }]],
        out: false,
        quiet: true,
        silent: true,
        detectConfig: false,
        detectIgnore: false,
        streamError: { write: () => true } as unknown as NodeJS.WritableStream,
      },
      (error, _code, context) => {
        if (error) return reject(error);
        const vfiles = context?.files ?? [];
        resolve({
          checked: vfiles.map((file) => file.path),
          problems: vfiles.flatMap((file) =>
            file.messages.map((message) => ({ file: file.path, line: message.line, reason: message.reason })),
          ),
        });
      },
    );
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'linkhop-links-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('markdown links', () => {
  it('finds a missing file or image, a missing heading and a missing heading in another file', async () => {
    mkdirSync(join(scratch, 'docs'));
    writeFileSync(
      join(scratch, 'README.md'),
      '# Top\n\n[a](docs/none.md) [b](#nowhere) [c](docs/page.md#no-such) ![d](docs/none.png)\n',
    );
    writeFileSync(join(scratch, 'docs/page.md'), '# Page\n\n[back](../README.md#top) [self](#page)\n');
    const { problems } = await checkLinks(scratch, ['README.md', 'docs']);
    expect(problems.map((problem) => problem.reason).sort()).toEqual([
      expect.stringMatching(/^Cannot find file `docs\/none\.md`/),
      expect.stringMatching(/^Cannot find file `docs\/none\.png`/),
      'Cannot find heading for `#no-such` in `docs/page.md`',
      'Cannot find heading for `#nowhere`',
    ]);
  });

  it('every link and anchor of README.md and docs/ resolves', async () => {
    const { checked, problems } = await checkLinks(ROOT, FILES);
    expect(checked).toEqual(
      expect.arrayContaining(['README.md', 'docs/api.md', 'docs/configuration.md', 'docs/spec/README.md']),
    );
    expect(problems.map((problem) => `${problem.file}:${problem.line}: ${problem.reason}`)).toEqual([]);
  });
});
