import { useMemo, useState } from 'react';
import { ApiError, put } from '../../api/client';
import type { BioPage, BioStats, Block, Link } from '../../api/types';
import { Banner, Card, Loading } from '../../components/ui';
import { useApi } from '../../use-api';
import { BlocksEditor } from './BlocksEditor';
import { blocksForSave, errorsByBlock, unknownLinkErrors } from './model';
import { type CardSaveProps, NoteBanner, SaveBar, SectionTitle, useSave } from './parts';

type BlockErrors = Record<string, Record<string, string>>;

/**
 * The ordered blocks with their per-block stats, saved as one array. A rejected save lands each error
 * at the block (and field) it names; errors naming no block are shown above the list.
 */
export function BlocksCard({
  blocks,
  onBlocksChange,
  saved,
  onSaved,
  dirty,
  links,
  linkMap,
  linksLoading,
  linksError,
}: CardSaveProps & {
  blocks: Block[];
  onBlocksChange: (blocks: Block[]) => void;
  links: Link[];
  linkMap: ReadonlyMap<string, Link>;
  linksLoading: boolean;
  linksError: string | undefined;
}) {
  const [blockErrors, setBlockErrors] = useState<BlockErrors>({});
  const [generalErrors, setGeneralErrors] = useState<string[]>([]);
  const request = useSave();
  const stats = useApi<BioStats>('/bio/stats');
  const statsByLink = useMemo(() => {
    const data = stats.data;
    if (!data || data.upgrade || !data.configured) return null;
    return new Map(data.blocks.map((row) => [row.linkId, row]));
  }, [stats.data]);

  /**
   * invalid_blocks and unknown_link land at the blocks they name, and the failure the note shows says
   * nothing was saved; any other failure passes through as it is.
   */
  const placeBlockErrors = (error: unknown): unknown => {
    if (!(error instanceof ApiError)) return error;
    if (error.code === 'invalid_blocks') {
      const { byBlock, general } = errorsByBlock(error.fieldErrors(), blocks);
      setBlockErrors(byBlock);
      setGeneralErrors(general);
      return new Error('Some blocks need a fix before they can be saved. Nothing was saved.');
    }
    if (error.code === 'unknown_link') {
      setBlockErrors(unknownLinkErrors((error.body as { linkIds?: string[] }).linkIds ?? [], blocks));
      return new Error('A block points at a link that does not exist. Nothing was saved.');
    }
    return error;
  };

  const save = () => {
    setBlockErrors({});
    setGeneralErrors([]);
    void request.run(async () => {
      const page = await put<BioPage>('/bio/blocks', blocksForSave(blocks)).catch((error: unknown) => {
        throw placeBlockErrors(error);
      });
      onSaved(page);
      onBlocksChange(page.blocks);
      void stats.reload();
      return page.published ? 'Blocks saved. They are live on your page.' : 'Blocks saved.';
    });
  };

  const discard = () => {
    onBlocksChange(saved.blocks);
    setBlockErrors({});
    setGeneralErrors([]);
  };

  return (
    <Card title={<SectionTitle text="Blocks" dirty={dirty} count={blocks.length} />} className="blocks-card">
      <NoteBanner note={request.note} />
      {generalErrors.map((message) => (
        <Banner key={message}>{message}</Banner>
      ))}
      {stats.data?.upgrade ? (
        <p className="stats-upsell">
          <span aria-hidden="true">★</span> Clicks and app-open rates per block come with Hero.{' '}
          <a href="#/settings">See plans</a>
        </p>
      ) : null}
      {linksLoading ? <Loading label="Loading your links" /> : null}
      {linksError ? <Banner>Your links could not be loaded: {linksError}</Banner> : null}
      <BlocksEditor
        blocks={blocks}
        onChange={onBlocksChange}
        links={links}
        linkMap={linkMap}
        errors={blockErrors}
        stats={statsByLink}
        statsWindow={stats.data?.window ?? 30}
      />
      <SaveBar
        className="blocks-save"
        label="Save blocks"
        busy={request.busy}
        dirty={dirty}
        onSave={save}
        onDiscard={discard}
        discardLabel="Discard changes"
      >
        {dirty ? <span className="hint">Unsaved: the whole list is written in one go.</span> : null}
      </SaveBar>
    </Card>
  );
}
