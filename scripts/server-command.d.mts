export declare const serverArgs: (root: string) => string[];
