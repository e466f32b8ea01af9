import type { CredentialScope, CredentialStore } from "@agentkit/core";
import type { Collection, Db } from "mongodb";
import { CREDENTIALS_TABLE } from "../credentials/credentials-table.js";
import { MongoHandle, storeError, type MongoConnectionOptions } from "./mongo-connection.js";

interface CredentialDoc {
  appName: string;
  userId: string;
  credentialKey: string;
  record: string;
  updateTime: number;
}

/**
 * Encrypted credential records (`StoredCredentialService`) in MongoDB, collection
 * `agentkit_credentials` with a unique index on app, user and key, usually in the sessions'
 * database. Documents hold only ciphertext.
 */
export class MongoCredentialStore implements CredentialStore {
  private readonly handle: MongoHandle;

  constructor(options: MongoConnectionOptions) {
    this.handle = new MongoHandle(options, "MongoCredentialStore", async (db: Db) => {
      await db
        .collection(CREDENTIALS_TABLE)
        .createIndex({ appName: 1, userId: 1, credentialKey: 1 }, { unique: true, name: "credential_scope" });
    });
  }

  private async collection(): Promise<Collection<CredentialDoc>> {
    return (await this.handle.db()).collection<CredentialDoc>(CREDENTIALS_TABLE);
  }

  async get(scope: CredentialScope): Promise<string | undefined> {
    const collection = await this.collection();
    try {
      const doc = await collection.findOne(filter(scope));
      return doc?.record;
    } catch (error) {
      throw storeError("credential read", error);
    }
  }

  async put(scope: CredentialScope, record: string): Promise<void> {
    const collection = await this.collection();
    try {
      await collection.updateOne(
        filter(scope),
        { $set: { ...filter(scope), record, updateTime: Date.now() / 1000 } },
        { upsert: true },
      );
    } catch (error) {
      throw storeError("credential write", error);
    }
  }

  async delete(scope: CredentialScope): Promise<void> {
    const collection = await this.collection();
    try {
      await collection.deleteOne(filter(scope));
    } catch (error) {
      throw storeError("credential delete", error);
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

function filter(scope: CredentialScope) {
  return { appName: scope.appName, userId: scope.userId, credentialKey: scope.credentialKey };
}
