/** A file of migrations/, read. */
export type Migration = {
  version: number;
  name: string;
  sql: string;
  checksum: string;
  transaction: boolean;
};

export type AppliedMigration = { version: number; name: string; checksum: string | null };

// A database migrated by newer code (a rollback, or another branch deployed to it) has tables and columns
// this code does not expect; migrations are up only, so the one safe answer is to stop and name them.
export function refuseUnknownMigrations(applied: AppliedMigration[], known: Migration[]): void {
  const knownNames = new Map(known.map((migration) => [migration.version, migration.name]));
  const unknown = applied.flatMap((row) => {
    const knownName = knownNames.get(row.version);
    if (knownName === row.name) return [];
    return [knownName ? `${row.name} (this code's version ${row.version} is ${knownName})` : row.name];
  });
  if (unknown.length === 0) return;
  throw new Error(
    `the database was migrated past this code: it holds ${unknown.join(', ')}, which migrations/ does not have; ` +
      'run the Tally version that applied them, or point this one at a database it migrated',
  );
}

// An applied migration is never run again, so an edit to its file never reaches a database that has it:
// databases migrated before and after the edit would differ without a trace. The change belongs in a new
// migration, and the file goes back to what was applied.
export function refuseEditedMigrations(applied: AppliedMigration[], known: Migration[]): void {
  const edited = applied.flatMap((row) => {
    const migration = known.find((candidate) => candidate.version === row.version);
    return migration && row.checksum !== null && row.checksum !== migration.checksum ? [migration.name] : [];
  });
  if (edited.length === 0) return;
  throw new Error(
    `migrations/${edited.join(', migrations/')} changed after the database applied it: ` +
      'restore the file as it was applied and put the change in a new migration',
  );
}
