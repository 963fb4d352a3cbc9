import { createDatabase } from "@caption/shared/db/database";
import { createKey, type CreateKeyInput } from "@caption/control-plane";

/** A key (of a new account, unless the input names one) created in the service's database, as the admin CLI creates it. */
export async function createBenchKey(databaseUrl: string, input: CreateKeyInput): Promise<string> {
  const db = createDatabase(databaseUrl, { max: 1, applicationName: "caption-bench" });
  try {
    return (await createKey(db, input)).api_key;
  } finally {
    await db.destroy();
  }
}
