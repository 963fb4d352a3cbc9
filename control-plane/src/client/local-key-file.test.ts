import assert from "node:assert/strict";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { advertiseService } from "../runtime/service-advert.ts";
import { revokeKey } from "../services/account-admin.ts";
import { newToken } from "../services/service-identity.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { openServiceSession } from "./service-session.ts";

// The local key of a caption command joining an `npm start` (here a test API advertised as one): a key the
// service refuses is reported, and a new account is made only when asked (--new-key).

const nonce = newToken();
let t: TestApi;
let dataDir: string;
let unadvertise: () => Promise<void>;
before(async () => {
  t = await startTestApi({}, { identityNonce: nonce });
  dataDir = await mkdtemp(path.join(tmpdir(), "caption-local-key-"));
  unadvertise = await advertiseService(dataDir, t.url, nonce);
});
after(async () => {
  await unadvertise();
  await rm(dataDir, { recursive: true });
  await t.close();
});

const keyFile = () => path.join(dataDir, "caption-command.json");
const accounts = async () => (await t.database.db.selectFrom("accounts").select("id").execute()).length;
const join = (newKey = false) => openServiceSession({ dataDir, databaseUrl: t.database.url, newKey });

test("a saved key the service refuses (401) stops the command with an error that says so; no account is made unasked", async () => {
  const revoked = await t.createKey();
  await revokeKey(t.database.db, revoked.key_prefix, new Date());
  const saved = JSON.stringify({ api_key: revoked.api_key, account_id: revoked.account_id });
  await writeFile(keyFile(), saved, { mode: 0o600 });
  const before = await accounts();
  await assert.rejects(join(), (error: { code?: string; message?: string }) => {
    assert.equal(error.code, "LOCAL_KEY_REFUSED");
    assert.match(error.message ?? "", /refused the local key saved in .*caption-command\.json \(401: the key was revoked, or the database was made afresh\); run again with --new-key/);
    return true;
  });
  assert.equal(await accounts(), before);
  assert.equal(await readFile(keyFile(), "utf8"), saved, "the saved key is left as it was");
});

test("--new-key makes a new local account and key, and keeps it for this user alone", async () => {
  const before = await accounts();
  const session = await join(true);
  assert.equal(session.mode, "joined");
  assert.equal(await accounts(), before + 1);
  const kept = JSON.parse(await readFile(keyFile(), "utf8")) as { api_key: string; account_id: string };
  assert.equal(kept.account_id, session.accountId);
  assert.equal((await stat(keyFile())).mode & 0o777, 0o600);
  assert.equal((await session.api.usage()).available_seconds, 36_000);
  const again = await join();
  assert.equal(again.accountId, session.accountId, "the next run uses the key it kept");
});

test("a key file others may read is refused, never replaced", async () => {
  await chmod(keyFile(), 0o644);
  const before = await accounts();
  await assert.rejects(join(), { code: "LOCAL_KEY_UNUSABLE", message: /has mode 0644; only its owner may read or write it/ });
  assert.equal(await accounts(), before);
  await chmod(keyFile(), 0o600);
});
