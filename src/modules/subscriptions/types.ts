/** Lives in the read model `subscription-records`, which orders and customers import too (one-way imports). */
export * from '../subscription-records/types';
