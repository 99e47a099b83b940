export const SERVER_ANSWERS = 'SELECT 1';
export const DATABASE_EXISTS = 'SELECT 1 FROM pg_database WHERE datname = $1';
