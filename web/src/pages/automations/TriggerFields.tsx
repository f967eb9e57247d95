import type { Trigger } from '../../api/types';
import { SelectField, TextField } from '../../components/ui';

/** The server's limit (src/social/trigger.ts), checked here first so the field says it before a save. */
export const MAX_KEYWORDS = 20;

/** The trigger as typed: keywords stay one comma-separated string until saved. */
export interface TriggerDraft {
  type: Trigger['type'];
  mode: Trigger['match']['mode'];
  keywords: string;
  mediaId: string;
}

export function draftOf(trigger: Trigger | undefined): TriggerDraft {
  return {
    type: trigger?.type ?? 'comment',
    mode: trigger?.match.mode ?? 'any',
    keywords: trigger?.match.keywords.join(', ') ?? '',
    mediaId: trigger?.mediaId ?? '',
  };
}

export function keywordsOf(draft: TriggerDraft): string[] {
  return draft.keywords
    .split(',')
    .map((keyword) => keyword.trim())
    .filter(Boolean);
}

/** What the server stores: a post id only for comments, and only when one was given. */
export function triggerOf(draft: TriggerDraft): Trigger {
  const mediaId = draft.mediaId.trim();
  return {
    type: draft.type,
    match: { mode: draft.mode, keywords: keywordsOf(draft) },
    mediaId: draft.type === 'comment' && mediaId ? mediaId : null,
  };
}

/** Comment or message, the keyword match, and (for comments) one post. */
export function TriggerFields({
  draft,
  onChange,
  keywordCount,
  errors,
}: {
  draft: TriggerDraft;
  onChange: (draft: TriggerDraft) => void;
  keywordCount: number;
  errors: Record<string, string>;
}) {
  const set = (change: Partial<TriggerDraft>) => onChange({ ...draft, ...change });
  return (
    <fieldset className="trigger-fieldset">
      <legend>When to send it</legend>
      <div className="form-grid">
        <SelectField
          label="Trigger"
          value={draft.type}
          onChange={(event) => set({ type: event.target.value as Trigger['type'] })}
        >
          <option value="comment">Someone comments on a post</option>
          <option value="message">Someone sends a direct message</option>
        </SelectField>
        <SelectField
          label="Match"
          value={draft.mode}
          onChange={(event) => set({ mode: event.target.value as Trigger['match']['mode'] })}
        >
          <option value="any">Contains any keyword</option>
          <option value="exact">Is exactly a keyword</option>
        </SelectField>
      </div>
      <TextField
        label="Keywords"
        value={draft.keywords}
        onChange={(event) => set({ keywords: event.target.value })}
        error={errors.keywords}
        placeholder="guide, link, info"
        hint={`Separate with commas, up to ${MAX_KEYWORDS} (${keywordCount} now). Case does not matter. Leave empty to answer everyone.`}
      />
      {draft.type === 'comment' ? (
        <TextField
          label="Only on this post (optional)"
          value={draft.mediaId}
          inputMode="numeric"
          onChange={(event) => set({ mediaId: event.target.value })}
          error={errors.mediaId}
          placeholder="e.g. 18012345678901234"
          hint="The post’s media id, digits only. Leave empty for every post."
        />
      ) : null}
    </fieldset>
  );
}
