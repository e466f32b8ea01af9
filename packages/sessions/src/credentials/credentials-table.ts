/** Table (SQL) or collection (MongoDB) of encrypted credential records, next to the sessions. */
export const CREDENTIALS_TABLE = "agentkit_credentials";
