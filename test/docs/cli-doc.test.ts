import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/cli.md lists every command `linkhop --help` lists, and no top-level command it does not (issue #32:
 * the README's old CLI table missed `import`). Runs the built command, as `npm test` builds it first.
 */

const ROOT = join(import.meta.dirname, '../..');

/** `org create`, `serve`, `link stats`, ...: each usage line's command words, before its arguments. */
function helpCommands(): string[] {
  const help = spawnSync(process.execPath, [join(ROOT, 'dist/cli/main.js'), '--help'], { encoding: 'utf8' });
  expect(help.status).toBe(0);
  const commands: string[] = [];
  for (const line of help.stdout.split('\n').slice(1)) {
    const usage = line.trim().split(/\s{2,}/)[0] ?? '';
    for (const part of usage.split(' | ')) {
      const words: string[] = [];
      for (const word of part.trim().split(/\s+/)) {
        if (!/^[a-z][a-z-]*$/.test(word)) break;
        words.push(word);
      }
      if (words.length > 0) commands.push(words.join(' '));
    }
  }
  return commands;
}

describe('docs/cli.md', () => {
  const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');

  it('documents every command of linkhop --help', () => {
    const commands = helpCommands();
    expect(commands).toEqual(
      expect.arrayContaining(['serve', 'engine', 'org create', 'import', 'link create']),
    );
    expect(commands.filter((command) => !doc.includes(`linkhop ${command}`))).toEqual([]);
  });

  it('documents no top-level command that linkhop does not have', () => {
    const topLevel = new Set(helpCommands().map((command) => command.split(' ')[0]));
    const documented = new Set([...doc.matchAll(/`linkhop ([a-z]+)/g)].map((match) => match[1]));
    expect([...documented].filter((command) => !topLevel.has(command))).toEqual([]);
  });
});
