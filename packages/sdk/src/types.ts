import type { components, operations } from './openapi.js';

/** The JSON an operation answers with `status`, straight from the generated OpenAPI types. */
export type Answer<
  Op extends keyof operations,
  Status extends keyof operations[Op]['responses'],
> = operations[Op]['responses'][Status] extends { content: { 'application/json': infer Body } }
  ? Body
  : never;

/** The JSON body an operation takes. */
export type Input<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** The query an operation takes. */
export type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

export type Me = Answer<'getMe', 200>;
export type Link = Answer<'getLink', 200>;
export type CreateLinkInput = Input<'createLink'>;
export type UpdateLinkInput = Input<'updateLink'>;
export type ListLinksQuery = Omit<Query<'listLinks'>, 'offset'>;
export type BulkResult = Answer<'bulkCreateLinks', 200>['results'][number];
export type Preview = Answer<'getLinkPreview', 200>;
export type Receipt = Answer<'getLinkReceipt', 200>;
export type QrQuery = Query<'getLinkQr'>;
export type Folder = Answer<'listFolders', 200>['folders'][number];
export type Domain = Answer<'createDomain', 201>;
export type Pixel = Answer<'createPixel', 201>;
export type Webhook = components['schemas']['Webhook'];
export type CreatedWebhook = components['schemas']['CreatedWebhook'];
export type Analytics = Answer<'getAnalytics', 200>;
export type LinkStats = Answer<'getLinkStats', 200>;
export type AbStats = Answer<'getLinkAbStats', 200>;
export type Click = Answer<'listLinkClicks', 200>['clicks'][number];
export type Contact = Answer<'listAudience', 200>['contacts'][number];
export type BioPage = components['schemas']['BioPage'];
