export type LabelObjectType = 'customer' | 'order' | 'subscription';
export const LABEL_OBJECT_TYPES: LabelObjectType[] = ['customer', 'order', 'subscription'];

export interface Label {
  id: number;
  title: string;
  color: string;
  created_at: string;
  updated_at: string;
}
