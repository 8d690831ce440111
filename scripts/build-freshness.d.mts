export declare const BUILD_INPUTS: readonly string[];
export declare function sourcesChangedAt(root: string): number;
export declare function builtAt(root: string): number;
export declare function sourcesFingerprint(root: string): string;
export declare function recordBuildSources(root: string): void;
export declare function buildIsStale(root: string): boolean;
