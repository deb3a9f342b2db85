/** The file the receiver uses when no store is given. Its own module, so that the CLI can name it without loading the store. */
export const DEFAULT_STORE_FILE = './webhook-events.db';
