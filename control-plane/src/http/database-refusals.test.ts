import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Type } from "@sinclair/typebox";
import { sql } from "kysely";
import { LiteralUnion } from "@caption/shared/api/style";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { defineRoute } from "./route-spec.ts";
import { ROUTES } from "./routes.ts";

// The last line: a value no check caught reaches PostgreSQL, which refuses it for what it is. That is the
// client's error, 400 INVALID_REQUEST in the error shape, not a 500. A route declared in this test alone
// hands its query's value to PostgreSQL unchecked, in each way a real one could.

const STATEMENTS = {
  text: (value: string) => sql`SELECT ${value}::text`,
  integer: (value: string) => sql`SELECT ${value}::integer`,
  date: (value: string) => sql`SELECT ${value}::date`,
  latin1: (value: string) => sql`SELECT convert_to(${value}, 'LATIN1')`,
  array: (value: string) => sql`SELECT array_fill(0, ARRAY[${value}::integer])`,
  column: (value: string) => sql`INSERT INTO pg_temp.probe VALUES (${value})`,
  defect: () => sql`SELECT FROM WHERE`,
};

const probe = defineRoute({
  method: "get",
  path: "/v1/probe/{kind}",
  auth: "none",
  params: { kind: { names: "probe", schema: LiteralUnion(Object.keys(STATEMENTS) as (keyof typeof STATEMENTS)[]) } },
  query: { schema: Type.Object({ value: Type.String() }) },
  responses: {},
  async handle(ctx, { deps, query }) {
    const statement = STATEMENTS[ctx.params.kind as keyof typeof STATEMENTS](query.value);
    await deps.db.transaction().execute(async (trx) => {
      await sql`CREATE TEMP TABLE probe (value varchar(3)) ON COMMIT DROP`.execute(trx);
      await statement.execute(trx);
    });
    ctx.body = { ok: true };
  },
});

let t: TestApi;
before(async () => {
  t = await startTestApi({}, { routes: [...ROUTES, probe] });
});
after(() => t.close());

const get = (kind: string, value: string) => t.request("GET", `/v1/probe/${kind}?value=${value}`);

describe("a value PostgreSQL refuses is 400 INVALID_REQUEST saying what was wrong with it", () => {
  const cases: [string, string, string, RegExp][] = [
    ["a NUL in text (22021)", "text", "a%00b", /text the service cannot store: a NUL character/],
    ["a character LATIN1 has not (22P05)", "latin1", "%E2%82%AC", /text the service cannot store/],
    ["a string longer than its column (22001)", "column", "abcd", /too long or out of range/],
    ["an integer out of range (22003)", "integer", "99999999999", /too long or out of range/],
    ["a date out of range (22008)", "date", "2024-13-45", /too long or out of range/],
    ["an array over PostgreSQL's limit (54000)", "array", "200000000", /too long or out of range/],
    ["no integer (22P02)", "integer", "abc", /malformed/],
    ["no date (22007)", "date", "abc", /malformed/],
  ];
  for (const [name, kind, value, message] of cases) {
    test(name, async () => {
      const res = await get(kind, value);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assertErrorShape(res.body, "INVALID_REQUEST");
      assert.match(res.body.error.message, message);
    });
  }

  test("the same statements with good values answer", async () => {
    for (const [kind, value] of [["text", "hello"], ["latin1", "caf%C3%A9"], ["column", "abc"], ["integer", "42"], ["date", "2024-12-31"], ["array", "3"]]) {
      assert.equal((await get(kind!, value!)).status, 200, `${kind} ${value}`);
    }
  });

  test("a statement that is wrong in itself stays a 500: the mapping hides no defect", async () => {
    const res = await get("defect", "x");
    assert.equal(res.status, 500);
    assertErrorShape(res.body, "INTERNAL_ERROR");
  });
});
