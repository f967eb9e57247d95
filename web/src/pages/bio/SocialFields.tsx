import type { Block, Link } from '../../api/types';
import { Button, SelectField } from '../../components/ui';
import { type KindFieldsProps, LinkOptions } from './LinkOptions';
import { SOCIAL_KEYS, socialName } from './model';

/** A social block's icons: each a network and the link it opens, up to 20. */

type SocialBlock = Extract<Block, { t: 'social' }>;
type SocialItem = SocialBlock['items'][number];

const MAX_ICONS = 20;

export function SocialFields({ block, links, errors, onChange }: KindFieldsProps<SocialBlock>) {
  const setItems = (items: SocialItem[]) => onChange({ ...block, items });
  const addIcon = () =>
    setItems([
      ...block.items,
      // The first network not used yet, on the workspace's first link.
      {
        key: SOCIAL_KEYS.find((k) => !block.items.some((i) => i.key === k)) ?? 'website',
        linkId: links[0]?.id ?? '',
      },
    ]);
  return (
    <div className="social-items">
      {block.items.map((item, index) => (
        <SocialItemFields
          // biome-ignore lint/suspicious/noArrayIndexKey: items have no id; the index is their identity
          key={index}
          item={item}
          index={index}
          links={links}
          errors={errors}
          onlyOne={block.items.length === 1}
          onChange={(next) => setItems(block.items.map((it, i) => (i === index ? next : it)))}
          onRemove={() => setItems(block.items.filter((_, i) => i !== index))}
        />
      ))}
      {errors.items ? <p className="field-error">{errors.items}</p> : null}
      <Button className="btn-small" disabled={block.items.length >= MAX_ICONS} onClick={addIcon}>
        + Add icon
      </Button>
    </div>
  );
}

function SocialItemFields({
  item,
  index,
  links,
  errors,
  onlyOne,
  onChange,
  onRemove,
}: {
  item: SocialItem;
  index: number;
  links: Link[];
  errors: Record<string, string>;
  /** The last icon cannot go: a social block needs one. */
  onlyOne: boolean;
  onChange: (next: SocialItem) => void;
  onRemove: () => void;
}) {
  // A network this editor does not list (set through the API) stays selectable.
  const keys: string[] = SOCIAL_KEYS.includes(item.key as (typeof SOCIAL_KEYS)[number])
    ? [...SOCIAL_KEYS]
    : [item.key, ...SOCIAL_KEYS];
  return (
    <div className="social-item">
      <SelectField
        label={`Icon ${index + 1} network`}
        value={item.key}
        error={errors[`items.${index}.key`]}
        onChange={(event) => onChange({ ...item, key: event.target.value })}
      >
        {keys.map((key) => (
          <option key={key} value={key}>
            {socialName(key)}
          </option>
        ))}
      </SelectField>
      <SelectField
        label={`Icon ${index + 1} link`}
        value={item.linkId}
        error={errors[`items.${index}.linkId`]}
        onChange={(event) => onChange({ ...item, linkId: event.target.value })}
      >
        <LinkOptions links={links} value={item.linkId} />
      </SelectField>
      <Button
        variant="ghost"
        className="btn-small social-remove"
        aria-label={`Remove icon ${index + 1}`}
        disabled={onlyOne}
        onClick={onRemove}
      >
        Remove
      </Button>
    </div>
  );
}
