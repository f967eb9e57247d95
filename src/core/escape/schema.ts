import { z } from 'zod';
import { IN_APP_KEYS } from '../visitor.js';
import { cellIndexKey, ESCAPE_HINTS, ESCAPE_STRATEGIES, type EscapeCell } from './types.js';

/** An ESCAPE_MATRIX_FILE that cannot be used; `problems` names the row and field of each one. */
export class EscapeMatrixFileError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`ESCAPE_MATRIX_FILE is invalid (${problems.length} problem(s)):\n- ${problems.join('\n- ')}`);
    this.name = 'EscapeMatrixFileError';
    this.problems = problems;
  }
}

const PLATFORM = /^(?:\*|[a-z0-9_]{2,32})$/;
const ANDROID_ONLY = new Set(['intent']);
const IOS_ONLY = new Set(['scheme', 'universal', 'x-safari']);

/** One row; the same schema validates the built-in rows (in a test) and the operator's file. */
export const escapeCellSchema = z
  .strictObject({
    inApp: z.enum(IN_APP_KEYS as [string, ...string[]]).nullable(),
    os: z.enum(['ios', 'android']),
    platform: z.string().regex(PLATFORM, 'must be a platform key (a-z, 0-9, _) or "*"'),
    strategies: z
      .array(z.enum(ESCAPE_STRATEGIES))
      .min(1, 'must list at least one strategy')
      .refine((list) => new Set(list).size === list.length, 'must not repeat a strategy'),
    attempt: z.enum(['script', 'tap']),
    fallbackDelayMs: z
      .number()
      .int('must be a whole number of milliseconds')
      .min(500, 'must be at least 500 ms')
      .max(15_000, 'must be at most 15000 ms'),
    hint: z.enum(ESCAPE_HINTS).nullable().optional(),
    source: z.string().trim().min(1, 'must name a source (a URL or a test path)').max(500),
    confirmed: z.iso.date('must be a date, YYYY-MM-DD'),
    note: z.string().max(500).optional(),
  })
  .superRefine((row, ctx) => {
    row.strategies.forEach((strategy, i) => {
      const wrongOs =
        (row.os === 'ios' && ANDROID_ONLY.has(strategy)) || (row.os === 'android' && IOS_ONLY.has(strategy));
      if (wrongOs) {
        ctx.addIssue({
          code: 'custom',
          path: ['strategies', i],
          message: `"${strategy}" has no meaning on ${row.os}`,
        });
      }
    });
    if (row.strategies.includes('instructions') && !row.hint) {
      ctx.addIssue({
        code: 'custom',
        path: ['hint'],
        message: 'is required when the strategies include "instructions"',
      });
    }
  });

const errorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === 'invalid_type')
    return issue.input === undefined ? 'is required' : `must be ${issue.expected}`;
  if (issue.code === 'unrecognized_keys')
    return `unknown field(s) ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
  if (issue.code === 'invalid_value')
    return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  return undefined;
};

/** `cells[3] (tiktok android *)`: the index, plus the row's key when it can be read. */
function rowName(list: unknown[], index: number): string {
  const raw = list[index];
  if (typeof raw !== 'object' || raw === null) return `cells[${index}]`;
  const { inApp, os, platform } = raw as Record<string, unknown>;
  const part = (value: unknown) => (typeof value === 'string' ? value : value === null ? 'browser' : '?');
  return `cells[${index}] (${part(inApp)} ${part(os)} ${part(platform)})`;
}

function duplicateProblems(rows: EscapeCell[], list: unknown[]): string[] {
  const seen = new Map<string, number>();
  const problems: string[] = [];
  rows.forEach((row, i) => {
    const key = cellIndexKey(row.inApp, row.os, row.platform);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else problems.push(`${rowName(list, i)}: the same cell as cells[${first}]`);
  });
  return problems;
}

/**
 * Validates the parsed JSON of ESCAPE_MATRIX_FILE (an array of rows, or `{cells: [...]}`). Throws
 * EscapeMatrixFileError listing every problem by row and field.
 */
export function parseEscapeMatrixFile(json: unknown): EscapeCell[] {
  const wrapped = typeof json === 'object' && json !== null && !Array.isArray(json);
  const list = wrapped ? (json as { cells?: unknown }).cells : json;
  if (!Array.isArray(list)) {
    throw new EscapeMatrixFileError(['cells: must be an array of cells, or an object {"cells": [...]}']);
  }
  const result = z.array(escapeCellSchema).safeParse(list, { error: errorMap });
  if (!result.success) {
    throw new EscapeMatrixFileError(
      result.error.issues.map((issue) => {
        const [index, ...field] = issue.path;
        if (typeof index !== 'number') return `cells: ${issue.message}`;
        const path = field
          .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
          .join('');
        return `${rowName(list, index)}${path}: ${issue.message}`;
      }),
    );
  }
  const rows = result.data as EscapeCell[];
  const duplicates = duplicateProblems(rows, list);
  if (duplicates.length > 0) throw new EscapeMatrixFileError(duplicates);
  return rows;
}
