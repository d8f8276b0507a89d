import 'reflect-metadata';
import { container as globalContainer, type DependencyContainer } from 'tsyringe';
import type { Token } from '../sdk/tokens.ts';

/**
 * Service registry over tsyringe. tsyringe has no unregister and skips value instances on dispose (F3),
 * so this map is the source of truth and the child container is rebuilt when a service leaves.
 */
export class ServiceRegistry {
  private readonly owners = new Map<string, { owner: string; value: unknown }>();
  private container: DependencyContainer = globalContainer.createChildContainer();

  provide<T>(owner: string, token: Token<T>, value: T): () => void {
    const existing = this.owners.get(token.id);
    if (existing) throw new Error(`Service "${token.id}" is already provided by "${existing.owner}"`);
    this.owners.set(token.id, { owner, value });
    this.container.register(token.id, { useValue: value });
    return () => this.remove(token.id);
  }

  resolve<T>(token: Token<T>): T | undefined {
    return this.container.isRegistered(token.id) ? this.container.resolve<T>(token.id) : undefined;
  }

  ids(): string[] { return [...this.owners.keys()]; }
  ownedBy(owner: string): number { return [...this.owners.values()].filter((s) => s.owner === owner).length; }
  providerOf(tokenId: string): string | undefined { return this.owners.get(tokenId)?.owner; }

  private remove(id: string): void {
    if (!this.owners.delete(id)) return;
    this.container = globalContainer.createChildContainer();
    for (const [tokenId, { value }] of this.owners) this.container.register(tokenId, { useValue: value });
  }
}
