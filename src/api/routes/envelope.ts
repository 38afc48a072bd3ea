/** The provider's response envelope, which the read API mirrors. */
export type PageInfo = {
  has_previous: boolean;
  has_next: boolean;
  start_cursor: string | null;
  end_cursor: string | null;
};

export function single(type: string, id: string | null, data: unknown) {
  return { id, type, data, page_info: null };
}

export function list(data: unknown[], pageInfo: PageInfo) {
  return { id: null, type: 'array', data, page_info: pageInfo };
}
