export declare const BUILD_INPUTS: readonly string[];
export declare function sourcesChangedAt(root: string): number;
export declare function builtAt(root: string): number;
