declare const VERSION: string;
