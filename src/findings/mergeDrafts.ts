import type { FindingDraft, Severity } from './findings.ts';

const SEVERITY_RANK: Record<Severity, number> = { info: 0, warning: 1, error: 2 };

/**
 * One draft per (code, subject), as the findings table keeps one open finding per key: the upsert cannot
 * take two rows for one key in one statement, and a run that failed on it would record nothing at all.
 * A rule reports each key once (returned_fee_unknown lists every unknown returned fee of a refund in one
 * draft); should one ever report a key twice, nothing is dropped: the first draft stands, with the most
 * severe severity, and the others' expected, actual, at_stake and details are kept in its `details.also_reported`.
 */
export function mergeDraftsBySubject(drafts: FindingDraft[]): FindingDraft[] {
  const merged = new Map<string, FindingDraft>();
  for (const draft of drafts) {
    const key = JSON.stringify([draft.code, draft.subjectType, draft.subjectId]);
    const first = merged.get(key);
    if (!first) {
      merged.set(key, draft);
      continue;
    }
    const alsoReported = Array.isArray(first.details.also_reported) ? first.details.also_reported : [];
    merged.set(key, {
      ...first,
      severity:
        SEVERITY_RANK[draft.severity] > SEVERITY_RANK[first.severity] ? draft.severity : first.severity,
      details: {
        ...first.details,
        also_reported: [
          ...alsoReported,
          { expected: draft.expected, actual: draft.actual, at_stake: draft.atStake, details: draft.details },
        ],
      },
    });
  }
  return [...merged.values()];
}
