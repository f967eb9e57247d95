import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayLiteral, literal, raw, sql } from '../../../src/analytics/clickhouse/literal.js';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';

const HOSTILE = [
  "it's",
  'back\\slash',
  "\\' OR 1=1 --",
  "'); DROP TABLE clicks; --",
  'line\nbreak\r\ttab',
  'nul\u0000byte',
  'bell\u0007 and del\u007f',
  'emoji 🦀 and é',
  '',
];

describe('ClickHouse literals: the one escaping function', () => {
  it('quotes strings with backslash escapes for the quote, the backslash and control characters', () => {
    expect(literal("it's")).toBe("'it\\'s'");
    expect(literal('a\\b')).toBe("'a\\\\b'");
    expect(literal('a\nb\u0000c\u0007')).toBe("'a\\nb\\0c\\x07'");
    expect(literal('plain-id_1')).toBe("'plain-id_1'");
  });

  it('writes safe integers, refuses anything else that is not a string', () => {
    expect(literal(42)).toBe('42');
    expect(literal(-7)).toBe('-7');
    expect(() => literal(1.5)).toThrow(/safe integer/);
    expect(() => literal(Number.NaN)).toThrow();
    expect(() => literal(2 ** 60)).toThrow();
    expect(() => literal({} as unknown as string)).toThrow();
    expect(() => literal(null as unknown as string)).toThrow();
  });

  it('writes a list as a tuple for IN, and refuses an empty one', () => {
    expect(literal(['a', "b'c", 3])).toBe("('a', 'b\\'c', 3)");
    expect(() => literal([])).toThrow(/empty list/);
  });

  it('writes an epoch day as a UTC Date literal, and refuses what is not one', () => {
    expect(dayLiteral(20162)).toBe("toDate('2025-03-15')");
    expect(dayLiteral(0)).toBe("toDate('1970-01-01')");
    expect(() => dayLiteral(-1)).toThrow();
    expect(() => dayLiteral(1.5)).toThrow();
    expect(() => dayLiteral(70_000)).toThrow();
  });

  it('the sql tag escapes every value and keeps raw() fragments as written', () => {
    const table = raw('db.clicks');
    expect(sql`SELECT 1 FROM ${table} WHERE a = ${"x'y"} AND b IN ${[1, 2]}`).toBe(
      "SELECT 1 FROM db.clicks WHERE a = 'x\\'y' AND b IN (1, 2)",
    );
  });

  describe.skipIf(clickhouseKind.skipReason !== null)('against a real server', () => {
    let ch: TestClickhouse;
    beforeAll(async () => {
      ch = await startClickhouse();
    });
    afterAll(async () => {
      await ch?.stop();
    });

    it('every hostile string reads back unchanged, as one value', async () => {
      for (const text of HOSTILE) {
        const out = await ch.query(sql`SELECT ${text} AS s, length(s) AS n FORMAT JSONEachRow`);
        const row = JSON.parse(out) as { s: string; n: string };
        expect(row.s, JSON.stringify(text)).toBe(text);
        expect(Number(row.n)).toBe(Buffer.byteLength(text));
      }
      const listed = await ch.query(
        sql`SELECT ${HOSTILE[3] as string} IN ${HOSTILE} AS found FORMAT JSONEachRow`,
      );
      expect(JSON.parse(listed)).toEqual({ found: 1 });
      const day = await ch.query(`SELECT toString(${dayLiteral(20162)}) AS d FORMAT JSONEachRow`);
      expect(JSON.parse(day)).toEqual({ d: '2025-03-15' });
    });
  });
});
